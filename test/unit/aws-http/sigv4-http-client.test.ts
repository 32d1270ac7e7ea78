import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AwsRequestRefusedError, SigV4HttpClient, type SigV4HttpClientOptions } from '../../../shared/adapters/aws-http/sigv4-http-client.ts';
import { DependencyUnavailableError } from '../../../shared/domain/errors.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'fake-secret-key' };
const BUDGET_MS = 300;

/** A server on 127.0.0.1 that answers every request with `respond`, counting the requests. */
async function serve(respond: (response: ServerResponse) => void): Promise<{ url: URL; requests: () => number; stop: () => Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests++;
    request.resume().on('end', () => respond(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/things`),
    requests: () => requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const clientWith = (options: Partial<SigV4HttpClientOptions> = {}) =>
  new SigV4HttpClient({
    signingName: 'things',
    region: 'eu-west-1',
    credentials: CREDENTIALS,
    dependency: 'things',
    connectionTimeoutMs: 1_000,
    timeBudgetMs: BUDGET_MS,
    retryDelaysMs: [10, 10],
    maxResponseBytes: 16,
    refusal: ({ statusCode, headers }) => new AwsRequestRefusedError('Things Put', statusCode, headers['x-error-code'], headers['x-request-id']),
    ...options,
  });

const post = (url: URL) => ({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"thing":1}' });

describe('SigV4HttpClient.send', () => {
  let stop: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('returns a 2XX answer with its headers and at most maxResponseBytes of its body', async () => {
    const server = await serve((response) => response.writeHead(201, { 'x-request-id': 'r-1' }).end('{"id":"0123456789abcdefghij"}'));
    stop = server.stop;

    const answer = await clientWith().send(post(server.url));

    expect(answer).toEqual({ statusCode: 201, headers: expect.objectContaining({ 'x-request-id': 'r-1' }), body: '{"id":"012345678' });
  });

  it('retries the codes it is told are transient, whatever their status', async () => {
    const server = await serve((response) => response.writeHead(400, { 'x-error-code': 'Busy', 'x-request-id': 'r-9' }).end());
    stop = server.stop;

    const error = await clientWith({ transientErrorCodes: new Set(['Busy']) }).send(post(server.url)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ dependency: 'things', cause: { statusCode: 400, code: 'Busy', requestId: 'r-9' } });
    expect(server.requests()).toBe(3);
  });

  it('gives up on a service that never answers when the time budget is spent', async () => {
    const server = await serve(() => undefined);
    stop = server.stop;
    const startedAt = Date.now();

    const error = await clientWith().send(post(server.url)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - startedAt).toBeLessThan(BUDGET_MS + 200);
    expect(server.requests()).toBe(1);
  });

  it('cuts a body that stalls at the deadline, and judges the answer by its status', async () => {
    const server = await serve((response) => response.writeHead(503, { 'x-error-code': 'SlowDown' }).write('{"message":'));
    stop = server.stop;
    const startedAt = Date.now();

    const error = await clientWith().send(post(server.url)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject({ statusCode: 503, code: 'SlowDown' });
    expect(Date.now() - startedAt).toBeLessThan(BUDGET_MS + 200);
  });

  it('throws a failure to sign as it is, without sending anything', async () => {
    const server = await serve((response) => response.writeHead(200).end());
    stop = server.stop;
    const noCredentials = new Error('no credentials in the environment');

    const error = await clientWith({ credentials: () => Promise.reject(noCredentials) }).send(post(server.url)).catch((e: unknown) => e);

    expect(error).toBe(noCredentials);
    expect(server.requests()).toBe(0);
  });
});
