import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClients, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { awsSdkLogger, logger } from '#shared/observability/logger.ts';

describe('awsSdkLogger', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is the logger of every AWS SDK client the functions create', () => {
    const { client, documents } = createDynamoDbClients();

    expect(client.config.logger).toBe(awsSdkLogger);
    expect(documents.config.logger).toBe(awsSdkLogger);
    expect(createSqsClient().config.logger).toBe(awsSdkLogger);
  });

  it('passes the SDK’s warnings on to the service log', () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);

    awsSdkLogger.warn('socket usage at capacity=50 and 12 additional requests are enqueued.');

    expect(warn).toHaveBeenCalledWith('AWS SDK warning', {
      detail: 'socket usage at capacity=50 and 12 additional requests are enqueued.',
    });
  });

  it('keeps the SDK’s command records, which carry the command input, out of the log', () => {
    const logged = ['debug', 'info', 'warn', 'error'].map((level) =>
      vi.spyOn(logger, level as 'info').mockImplementation(() => undefined),
    );

    awsSdkLogger.info({ input: { Item: { email: { S: 'someone@example.com' } } } });
    awsSdkLogger.error({ input: { Item: { email: { S: 'someone@example.com' } } } });

    for (const spy of logged) expect(spy).not.toHaveBeenCalled();
  });
});
