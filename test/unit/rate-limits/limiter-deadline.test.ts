import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbOnboardingEmailQuota } from '#shared/adapters/dynamodb/limits/email-quota.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { DynamoDbOrganizationRateLimiter } from '#shared/adapters/dynamodb/limits/organization-rate-limiter.ts';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { DEFAULT_EMAIL_QUOTA } from '#shared/domain/limits/email-quota.ts';
import { WEBHOOK_TEST_RATE_LIMIT } from '#shared/domain/webhooks/webhook-endpoint.ts';
import { useAwsEndpoint } from '#test/support/aws-endpoint-environment.ts';
import { sendingNotPaused } from '#test/support/email-sending.ts';

/** A DynamoDB endpoint that reads requests and never answers; records each request's operation. */
let stalledDatabase: Server;
const sockets = new Set<Socket>();
const operations: string[] = [];
let endpointUrl = '';

beforeAll(async () => {
  stalledDatabase = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/x-amz-target: DynamoDB_20120810\.(\w+)/gi)) {
        operations.push(match[1]!);
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => stalledDatabase.listen(0, '127.0.0.1', resolve));
  const address = stalledDatabase.address();
  endpointUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => stalledDatabase.close(resolve));
});

useAwsEndpoint(() => endpointUrl, ['DYNAMODB']);
beforeEach(() => {
  operations.length = 0;
});

describe('the limiters under the request deadline, DynamoDB stalled', () => {
  it('token create: 503 (DependencyUnavailableError) at the deadline, having only read the quotas: nothing spent, stored or sent', async () => {
    const { documents } = createDynamoDbClients();
    const sendOnboardingToken = vi.fn(() => Promise.resolve());
    const create = createOnboardingToken({
      tokens: new DynamoDbOnboardingTokenStore(documents, 'OnboardingTokens'),
      mailer: { sendOnboardingToken },
      emailQuota: new DynamoDbOnboardingEmailQuota(documents, 'OnboardingTokens', DEFAULT_EMAIL_QUOTA),
      emailSending: sendingNotPaused,
      clock: { now: () => new Date() },
    });
    const startedAt = Date.now();

    const failure = await runWithDeadline(400, () =>
      create({
        answerBy: new Date(Date.now() + 400),
        orgId: 'acme',
        organizationName: 'Acme',
        email: 'zoe@example.com',
        firstName: 'Zoë',
        lastName: 'Ångström',
      }),
    ).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).toMatchObject({ dependency: 'database', outcomeUnknown: true });
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(operations.length).toBeGreaterThan(0);
    expect(new Set(operations)).toEqual(new Set(['BatchGetItem']));
    expect(sendOnboardingToken).not.toHaveBeenCalled();
  });

  it('webhook test limit: the same', async () => {
    const { documents } = createDynamoDbClients();
    const limiter = new DynamoDbOrganizationRateLimiter(documents, 'Webhooks', 'webhook-test', WEBHOOK_TEST_RATE_LIMIT);

    const failure = await runWithDeadline(300, () => limiter.spend('acme', new Date())).catch(
      (error: unknown) => error,
    );

    expect(failure).toMatchObject({ name: 'DependencyUnavailableError', outcomeUnknown: true });
    expect(new Set(operations)).toEqual(new Set(['GetItem']));
  });
});
