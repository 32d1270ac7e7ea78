import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Worker } from 'node:worker_threads';
import { connectAsAdmin, seedGeneratedOrganization } from '#local/seed-demo-data.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { requestOnAgent } from './agent-request.ts';
import type { MeasurementContext } from './measurement.ts';
import type { PacedAnswer, PacedRequests } from './paced-requests-worker.ts';
import { sleep } from './timing.ts';

/** Calls to the local stack's API over loopback, and the data they need. */

export interface ApiResponse {
  status: number;
  body: Record<string, any>;
}

/**
 * One caller's HTTP client: its own keep-alive connections, as two customers of the API would
 * have. Without one, calls share the process's global fetch pool, so one simulated organization's
 * burst takes another's idle connection and the other pays for a new one. A deployed stage's
 * `https:` address (`--target`) takes an HTTPS agent.
 */
export function createApiClient(baseUrl?: string): Agent {
  return baseUrl?.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
}

export async function callLocalApi(
  baseUrl: string,
  method: string,
  path: string,
  options: { token: string; body?: unknown; client?: Agent },
): Promise<ApiResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (options.client) return requestOnAgent(options.client, new URL(path, baseUrl), method, options.token, payload);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/**
 * `count` demo users in a new organization, written into the local stack's PostgreSQL through the
 * import's validation and writer (as its superuser, like the seed); returns them.
 */
export async function seedOrganization(
  context: MeasurementContext,
  orgId: string,
  count: number,
): Promise<UserRecord[]> {
  const stack = await context.localStack();
  return seedGeneratedOrganization({
    database: connectAsAdmin(stack.usersDatabase),
    orgId,
    count,
    organizationName: `Benchmark ${orgId}`,
  });
}

/** Polls a report job every `intervalMs` until it is COMPLETE; throws on FAILED or after `timeoutMs`. */
export async function waitUntilComplete(
  baseUrl: string,
  jobId: string,
  token: string,
  options: { intervalMs: number; timeoutMs: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const { status, body } = await callLocalApi(baseUrl, 'GET', `/v1/document/api/${jobId}`, { token });
    if (status !== 200) throw new Error(`GET report job ${jobId}: ${status} ${JSON.stringify(body)}`);
    if (body.status === 'COMPLETE') return;
    if (body.status === 'FAILED') throw new Error(`report job ${jobId} failed: ${body.errorCode}`);
    if (Date.now() > deadline)
      throw new Error(`report job ${jobId} still ${body.status} after ${options.timeoutMs} ms`);
    await sleep(options.intervalMs);
  }
}

/** Posts a report request and returns the job id (202 expected). */
export async function requestReport(baseUrl: string, userId: string, token: string): Promise<string> {
  const { status, body } = await callLocalApi(baseUrl, 'POST', '/v1/document/api', { token, body: { userId } });
  if (status !== 202) throw new Error(`POST report for ${userId}: ${status} ${JSON.stringify(body)}`);
  return body.jobId as string;
}

/**
 * Runs a paced flood of requests on a worker thread (./paced-requests-worker.ts); resolves to every answer: its
 * status, a 429's refusing limit, and its send and answer times (epoch ms, as `performance.timeOrigin + performance.now()`).
 */
export function runTimedPacedRequests(plan: PacedRequests): Promise<PacedAnswer[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./paced-requests-worker.ts', import.meta.url), { workerData: plan });
    worker.once('message', (answers: PacedAnswer[]) => resolve(answers));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
    });
  });
}
