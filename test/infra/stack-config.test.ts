import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { parseStackConfig, readStackConfig } from '#lib/stack-config.ts';
import { exampleContext } from './service-stack-fixture.ts';

describe('stack configuration from CDK context', () => {
  it('accepts a deployment’s context on top of cdk.json and fills in the defaults', () => {
    const config = readStackConfig(new App({ context: exampleContext }).node);
    expect(config).toMatchObject({
      stage: 'dev',
      jwtIssuer: 'https://idp.example.org/',
      jwtAudience: 'onboarding-api',
      jwksUrl: 'https://idp.example.org/.well-known/jwks.json',
      orgClaim: 'org_id',
      orgNameClaim: 'org_name',
      senderEmail: 'no-reply@example.org',
      senderIdentity: 'example.org',
      senderIdentityExists: false,
      retentionDays: 30,
    });
    expect(config.alarmEmail).toBeUndefined();
  });

  it('ships no placeholder: cdk.json alone stops the synth, naming each value a deployment must give', () => {
    const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(JSON.stringify(cdkJson)).not.toMatch(/example\.(com|org)/);
    const failure = (() => {
      try {
        parseStackConfig(cdkJson.context);
        return undefined;
      } catch (error) {
        return error as Error;
      }
    })();
    expect(failure?.message).toMatch(/jwtIssuer: jwtIssuer is required/);
    expect(failure?.message).toMatch(/jwtAudience: jwtAudience is required/);
    expect(failure?.message).toMatch(/jwksUrl: jwksUrl is required/);
    expect(failure?.message).toMatch(/senderEmail: senderEmail is required/);
    expect(failure?.message).toMatch(/dashboardClientId: dashboardClientId is required/);
  });

  it('takes the stage and the existing-identity switch from -c strings', () => {
    expect(parseStackConfig({ ...exampleContext, stage: 'prod', senderIdentityExists: 'true' })).toMatchObject({
      stage: 'prod',
      senderIdentityExists: true,
    });
    expect(() => parseStackConfig({ ...exampleContext, stage: 'Prod_1' })).toThrow(/stage must be lower-case/);
  });

  it('takes numbers given as strings with -c', () => {
    expect(parseStackConfig({ ...exampleContext, retentionDays: '7' }).retentionDays).toBe(7);
  });

  it('keeps the contract’s 10 report requests per 10 minutes unless reportRateLimit says otherwise (1 to 1000)', () => {
    expect(parseStackConfig(exampleContext).reportRateLimit).toBe(10);
    expect(parseStackConfig({ ...exampleContext, reportRateLimit: '100' }).reportRateLimit).toBe(100);
    expect(parseStackConfig({ ...exampleContext, reportRateLimit: 25 }).reportRateLimit).toBe(25);
    expect(() => parseStackConfig({ ...exampleContext, reportRateLimit: 0 })).toThrow(
      /reportRateLimit: reportRateLimit must be at least 1/,
    );
    expect(() => parseStackConfig({ ...exampleContext, reportRateLimit: '1001' })).toThrow(
      /reportRateLimit: reportRateLimit must be at most 1000/,
    );
    expect(() => parseStackConfig({ ...exampleContext, reportRateLimit: 'lots' })).toThrow(
      /reportRateLimit: reportRateLimit must be a number/,
    );
  });

  it('keeps the contract’s e-mail quotas (5 to one address, 1000 per organization, an hour) unless the context says otherwise', () => {
    expect(parseStackConfig(exampleContext)).toMatchObject({
      emailQuotaPerRecipientPerHour: 5,
      emailQuotaPerOrganizationPerHour: 1000,
    });
    expect(
      parseStackConfig({ ...exampleContext, emailQuotaPerRecipientPerHour: '2', emailQuotaPerOrganizationPerHour: 50 }),
    ).toMatchObject({ emailQuotaPerRecipientPerHour: 2, emailQuotaPerOrganizationPerHour: 50 });
    expect(() => parseStackConfig({ ...exampleContext, emailQuotaPerRecipientPerHour: 0 })).toThrow(
      /emailQuotaPerRecipientPerHour: emailQuotaPerRecipientPerHour must be at least 1/,
    );
    expect(() => parseStackConfig({ ...exampleContext, emailQuotaPerRecipientPerHour: 101 })).toThrow(
      /emailQuotaPerRecipientPerHour must be at most 100/,
    );
    expect(() => parseStackConfig({ ...exampleContext, emailQuotaPerOrganizationPerHour: 'many' })).toThrow(
      /emailQuotaPerOrganizationPerHour: emailQuotaPerOrganizationPerHour must be a number/,
    );
  });

  it('names a missing senderEmail', () => {
    const { senderEmail: _omitted, ...context } = exampleContext;
    expect(() => readStackConfig(new App({ context }).node)).toThrow(/senderEmail: senderEmail is required/);
  });

  it('names a jwksUrl that is not a URL', () => {
    expect(() => parseStackConfig({ ...exampleContext, jwksUrl: 'auth.example.com/jwks' })).toThrow(
      /jwksUrl: jwksUrl must be a URL/,
    );
  });

  it('names every invalid key at once', () => {
    const attempt = () => parseStackConfig({ ...exampleContext, jwtIssuer: ' ', alarmEmail: 'ops', retentionDays: 0 });
    expect(attempt).toThrow(/^\s+jwtIssuer: jwtIssuer must not be empty$/m);
    expect(attempt).toThrow(/^\s+alarmEmail: alarmEmail must be an e-mail address$/m);
    expect(attempt).toThrow(/^\s+retentionDays: retentionDays must be at least 1$/m);
  });

  it('reserves no Lambda concurrency unless reservedConcurrency is given, as a number or a -c string', () => {
    expect(parseStackConfig(exampleContext).reservedConcurrency).toBeUndefined();
    expect(parseStackConfig({ ...exampleContext, reservedConcurrency: '10' }).reservedConcurrency).toBe(10);
    expect(parseStackConfig({ ...exampleContext, reservedConcurrency: 2 }).reservedConcurrency).toBe(2);
  });

  it('names a reservedConcurrency that is not an integer from 2 (the lowest maximum of an SQS event source)', () => {
    for (const [value, message] of [
      ['1', /reservedConcurrency: reservedConcurrency must be at least 2/],
      [0, /reservedConcurrency: reservedConcurrency must be at least 2/],
      ['', /reservedConcurrency: reservedConcurrency must be at least 2/],
      ['2.5', /reservedConcurrency: reservedConcurrency must be an integer/],
      ['five', /reservedConcurrency: reservedConcurrency must be a number/],
      [true, /reservedConcurrency: reservedConcurrency must be a number/],
      ['1001', /reservedConcurrency: reservedConcurrency must be at most 1000/],
    ] as const) {
      expect(() => parseStackConfig({ ...exampleContext, reservedConcurrency: value }), String(value)).toThrow(message);
    }
  });

  it('refuses a sender identity that does not cover the sender address', () => {
    expect(() => parseStackConfig({ ...exampleContext, senderIdentity: 'other.example' })).toThrow(/senderIdentity: /);
  });
});

describe('the edge’s context values', () => {
  it('turns the edge on for stage=prod alone unless edgeProtection says otherwise (true/false as -c strings)', () => {
    expect(parseStackConfig(exampleContext).edgeProtection).toBe(false);
    expect(parseStackConfig({ ...exampleContext, stage: 'prod' }).edgeProtection).toBe(true);
    expect(parseStackConfig({ ...exampleContext, stage: 'prod', edgeProtection: 'false' }).edgeProtection).toBe(false);
    expect(parseStackConfig({ ...exampleContext, edgeProtection: 'true' }).edgeProtection).toBe(true);
    expect(() => parseStackConfig({ ...exampleContext, edgeProtection: 'yes' })).toThrow(
      /edgeProtection must be true or false/,
    );
  });

  it('defaults the rate limits to 12,000 per address and 6,000 per Authorization value a minute', () => {
    expect(parseStackConfig({ ...exampleContext, stage: 'prod' })).toMatchObject({
      edgeRateLimitPerIp: 12_000,
      edgeRateLimitPerAuthorization: 6_000,
    });
  });

  it('refuses, with the edge on, a per-token limit at or below one organization’s budget per minute', () => {
    // 50 x 60 + 100 = 3,100.
    expect(() => parseStackConfig({ ...exampleContext, stage: 'prod', edgeRateLimitPerAuthorization: '3100' })).toThrow(
      /edgeRateLimitPerAuthorization must be above one organization’s budget per minute/,
    );
    expect(
      parseStackConfig({ ...exampleContext, stage: 'prod', edgeRateLimitPerAuthorization: '3101' })
        .edgeRateLimitPerAuthorization,
    ).toBe(3101);
    // With the edge off the value is not used, so it is not checked against the budget.
    expect(() => parseStackConfig({ ...exampleContext, edgeRateLimitPerAuthorization: '100' })).not.toThrow();
  });

  it('refuses, with the edge on, a stage throttle that one client could fill through the edge', () => {
    expect(() => parseStackConfig({ ...exampleContext, stage: 'prod', apiThrottleRate: '200' })).toThrow(
      /apiThrottleRate x 60 must be above edgeRateLimitPerIp and edgeRateLimitPerAuthorization/,
    );
    expect(() => parseStackConfig({ ...exampleContext, stage: 'prod', apiThrottleRate: '201' })).not.toThrow();
    expect(() => parseStackConfig({ ...exampleContext, apiThrottleRate: '200' })).not.toThrow();
  });

  it('takes a custom domain only with its certificate, and checks both', () => {
    const certificate = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-000000000000';
    expect(
      parseStackConfig({ ...exampleContext, apiDomainName: 'API.example.org', apiCertificateArn: certificate }),
    ).toMatchObject({ apiDomainName: 'api.example.org', apiCertificateArn: certificate });
    expect(() => parseStackConfig({ ...exampleContext, apiDomainName: 'api.example.org' })).toThrow(
      /apiDomainName and apiCertificateArn go together/,
    );
    expect(() =>
      parseStackConfig({ ...exampleContext, apiDomainName: 'not a domain', apiCertificateArn: certificate }),
    ).toThrow(/apiDomainName must be a domain name/);
    expect(() =>
      parseStackConfig({
        ...exampleContext,
        apiDomainName: 'api.example.org',
        apiCertificateArn: 'arn:aws:iam::1:role/x',
      }),
    ).toThrow(/apiCertificateArn must be an ACM certificate ARN/);
  });

  it('takes a Secrets Manager version id for the origin secret', () => {
    const version = '0d1e2f3a-4b5c-4d6e-8f70-81920a3b4c5d';
    expect(parseStackConfig({ ...exampleContext, originVerifySecretVersion: version }).originVerifySecretVersion).toBe(
      version,
    );
    expect(() => parseStackConfig({ ...exampleContext, originVerifySecretVersion: 'AWSCURRENT' })).toThrow(
      /originVerifySecretVersion must be a Secrets Manager version id/,
    );
  });
});
