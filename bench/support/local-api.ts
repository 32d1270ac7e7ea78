import { generateDemoUsers } from '#local/demo-users.ts';
import { connectAsAdmin, seedUsers } from '#local/seed-demo-data.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import type { MeasurementContext } from './measurement.ts';
import { sleep } from './timing.ts';

/** Calls to the local stack's API over loopback, and the data they need. */

export interface ApiResponse {
  status: number;
  body: Record<string, any>;
}

export async function callLocalApi(
  baseUrl: string,
  method: string,
  path: string,
  options: { token: string; body?: unknown },
): Promise<ApiResponse> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
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
  const users = generateDemoUsers({ orgId, count, organizationName: `Benchmark ${orgId}` });
  const database = connectAsAdmin(stack.usersDatabase);
  try {
    await seedUsers({ database, orgId, users });
  } finally {
    await database.close();
  }
  return users;
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
