import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AwsAddress } from '../../../shared/adapters/aws-http/aws-environment.ts';
import {
  AwsRequestRefusedError,
  SigV4HttpClient,
  type SigV4HttpClientOptions,
} from '../../../shared/adapters/aws-http/sigv4-http-client.ts';
import { DependencyUnavailableError } from '../../../shared/domain/errors.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'fake-secret-key' };
const ATTEMPT_MS = 100;
const BUDGET_MS = 300;
/** Timers fire a little late on a busy machine. */
const TIMER_SLACK_MS = 100;

interface Target {
  address: AwsAddress;
  requests: () => number;
  stop: () => Promise<void>;
}

const addressOf = (port: number): AwsAddress => ({
  protocol: 'http:',
  hostname: '127.0.0.1',
  port,
  path: '/v1/things',
});

/** A server on 127.0.0.1 that answers every request with `respond`, counting the requests. */
async function serve(respond: (response: ServerResponse) => void): Promise<Target> {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests++;
    request.resume().on('end', () => respond(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: addressOf((server.address() as AddressInfo).port),
    requests: () => requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port nothing listens on any more. */
async function refusing(): Promise<Target> {
  const server = await serve(() => undefined);
  await server.stop();
  return server;
}

/** Listens with a backlog of one, prints its port and stops itself before it accepts anything. */
const STOPPED_LISTENER = `
  const server = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    process.stdout.write(server.address().port + '\\n');
    process.kill(process.pid, 'SIGSTOP');
  });`;

/**
 * A port whose connections are never accepted: filler connections take the stopped listener's
 * backlog, so the kernel drops any further handshake and connecting hangs.
 */
async function neverAccepting(): Promise<Target> {
  const listener = spawn(process.execPath, ['-e', STOPPED_LISTENER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(String((await once(listener.stdout, 'data'))[0]).trim());
  const fillers = [1, 2, 3].map(() => connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    address: addressOf(port),
    requests: () => 0,
    stop: async () => {
      for (const filler of fillers) filler.destroy();
      listener.kill('SIGKILL');
    },
  };
}

const clientWith = (options: Partial<SigV4HttpClientOptions> = {}) =>
  new SigV4HttpClient({
    signingName: 'things',
    region: 'eu-west-1',
    credentials: CREDENTIALS,
    dependency: 'things',
    connectionTimeoutMs: 50,
    attemptTimeoutMs: ATTEMPT_MS,
    timeBudgetMs: BUDGET_MS,
    retryDelaysMs: [10, 10],
    maxResponseBytes: 16,
    refusal: ({ statusCode, headers }) =>
      new AwsRequestRefusedError('Things Put', statusCode, headers['x-error-code'], headers['x-request-id']),
    ...options,
  });

const post = (address: AwsAddress) => ({
  method: 'POST',
  address,
  headers: { 'content-type': 'application/json' },
  body: '{"thing":1}',
});

describe('SigV4HttpClient.send', () => {
  let stop: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await stop?.();
    stop = undefined;
    vi.restoreAllMocks();
  });

  it('returns a 2XX answer with its headers and at most maxResponseBytes of its body', async () => {
    const server = await serve((response) =>
      response.writeHead(201, { 'x-request-id': 'r-1' }).end('{"id":"0123456789abcdefghij"}'),
    );
    stop = server.stop;

    const answer = await clientWith().send(post(server.address));

    expect(answer).toEqual({
      statusCode: 201,
      headers: expect.objectContaining({ 'x-request-id': 'r-1' }),
      body: '{"id":"012345678',
    });
  });

  it('retries the codes it is told are transient, whatever their status', async () => {
    const server = await serve((response) =>
      response.writeHead(400, { 'x-error-code': 'Busy', 'x-request-id': 'r-9' }).end(),
    );
    stop = server.stop;

    const error = await clientWith({ transientErrorCodes: new Set(['Busy']) })
      .send(post(server.address))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ dependency: 'things', cause: { statusCode: 400, code: 'Busy', requestId: 'r-9' } });
    expect(server.requests()).toBe(3);
  });

  it('gives each attempt at a service that never answers its own timeout, and ends within the time budget', async () => {
    const server = await serve(() => undefined);
    stop = server.stop;
    const startedAt = Date.now();

    const error = await clientWith()
      .send(post(server.address))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    // 100 ms, a pause of 10 ms, 100 ms, a pause of 10 ms, and the 80 ms the budget has left.
    expect(server.requests()).toBe(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(BUDGET_MS - 10);
    expect(Date.now() - startedAt).toBeLessThan(BUDGET_MS + TIMER_SLACK_MS);
  });

  it('cuts a body that stalls at the attempt deadline, and judges the answer by its status', async () => {
    const server = await serve((response) =>
      response.writeHead(503, { 'x-error-code': 'SlowDown' }).write('{"message":'),
    );
    stop = server.stop;
    const startedAt = Date.now();

    const error = await clientWith()
      .send(post(server.address))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject({ statusCode: 503, code: 'SlowDown' });
    expect(server.requests()).toBe(3);
    expect(Date.now() - startedAt).toBeLessThan(BUDGET_MS + TIMER_SLACK_MS);
  });

  it.each([
    [
      'a connection never accepted (connection timeout)',
      neverAccepting,
      { name: 'TimeoutError', message: expect.stringContaining('establish a connection') },
    ],
    [
      'an answer that never comes (request timeout)',
      () => serve(() => undefined),
      { name: 'TimeoutError', code: 'ETIMEDOUT' },
    ],
    [
      'a connection closed without an answer',
      () => serve((response) => response.socket!.destroy()),
      { code: 'ECONNRESET', message: 'socket hang up' },
    ],
    ['a connection reset', () => serve((response) => response.socket!.resetAndDestroy()), { code: 'ECONNRESET' }],
    ['a refused connection', refusing, { code: 'ECONNREFUSED' }],
  ])('tries again after %s, then reports DependencyUnavailableError', async (_label, target, failure) => {
    const server = await target();
    stop = server.stop;
    const handle = vi.spyOn(NodeHttpHandler.prototype, 'handle');

    const error = await clientWith()
      .send(post(server.address))
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject(failure);
    expect(handle).toHaveBeenCalledTimes(3);
  });

  it('throws any other error as it is, at once: a header value Node refuses to send', async () => {
    const server = await serve((response) => response.writeHead(200).end());
    stop = server.stop;
    const handle = vi.spyOn(NodeHttpHandler.prototype, 'handle');

    const error = await clientWith()
      .send({ ...post(server.address), headers: { 'x-note': 'one\ntwo' } })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_CHAR' });
    expect(error).not.toBeInstanceOf(DependencyUnavailableError);
    expect(handle).toHaveBeenCalledTimes(1);
    expect(server.requests()).toBe(0);
  });

  it('refuses a path with a query, which the signer would sign as part of the path', async () => {
    await expect(clientWith().send(post({ ...addressOf(1), path: '/v1/things?version=2' }))).rejects.toThrow(
      'sends no query',
    );
  });

  it('throws a failure to sign as it is, without sending anything', async () => {
    const server = await serve((response) => response.writeHead(200).end());
    stop = server.stop;
    const noCredentials = new Error('no credentials in the environment');

    const error = await clientWith({ credentials: () => Promise.reject(noCredentials) })
      .send(post(server.address))
      .catch((e: unknown) => e);

    expect(error).toBe(noCredentials);
    expect(server.requests()).toBe(0);
  });
});
