import type { Answer, answerChecker } from './answer-checker.ts';
import type { Credential, DocumentOperation, ProbeRequest } from './request-cases.ts';

/** The `Authorization` value for a credential of an operation; undefined sends none. */
export type Authorize = (credential: Credential, operation: DocumentOperation) => Promise<string | undefined>;

/** Sends one request to `baseUrl` and returns the answer as the client saw it. */
export async function send(
  baseUrl: string,
  operation: DocumentOperation,
  request: ProbeRequest,
  authorize: Authorize,
): Promise<Answer> {
  const authorization = await authorize(request.credential, operation);
  const response = await fetch(`${baseUrl}${request.target}`, {
    method: request.method,
    headers: { ...request.headers, ...(authorization ? { authorization } : {}) },
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Sends one request and returns the problems with its answer, each naming the request. */
export async function probe(
  baseUrl: string,
  checker: ReturnType<typeof answerChecker>,
  operation: DocumentOperation,
  request: ProbeRequest,
  authorize: Authorize,
): Promise<string[]> {
  const answer = await send(baseUrl, operation, request, authorize);
  const target = request.target.length > 120 ? `${request.target.slice(0, 120)}…` : request.target;
  return checker
    .check(operation, answer)
    .map((problem) => `${request.name} (${request.method} ${target}, token ${request.credential}): ${problem}`);
}

/** Runs `run` over `items`, at most `limit` at a time. */
export async function inParallel<T>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    }),
  );
}
