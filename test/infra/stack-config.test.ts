import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { parseStackConfig, readStackConfig } from '../../lib/stack-config.ts';
import { exampleContext } from './service-stack-fixture.ts';

describe('stack configuration from CDK context', () => {
  it('accepts the example context of cdk.json and fills in the defaults', () => {
    const config = readStackConfig(new App({ context: exampleContext }).node);
    expect(config).toMatchObject({
      jwtIssuer: 'https://auth.example.com/',
      jwtAudience: 'onboarding-api',
      jwksUrl: 'https://auth.example.com/.well-known/jwks.json',
      orgClaim: 'org_id',
      orgNameClaim: 'org_name',
      senderEmail: 'no-reply@example.com',
      senderIdentity: 'example.com',
      retentionDays: 30,
    });
    expect(config.alarmEmail).toBeUndefined();
  });

  it('takes numbers given as strings with -c', () => {
    expect(parseStackConfig({ ...exampleContext, retentionDays: '7' }).retentionDays).toBe(7);
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

  it('refuses a sender identity that does not cover the sender address', () => {
    expect(() => parseStackConfig({ ...exampleContext, senderIdentity: 'other.example' })).toThrow(/senderIdentity: /);
  });
});
