import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * One JSON API request on a keep-alive agent, answered with its status and parsed body (`{}` when
 * empty). Imports nothing of the repository's and uses only erasable TypeScript, so the load
 * generator's worker thread (./paced-requests-worker.ts) runs it without a loader. An `https:`
 * address (a deployed stage, `--target`) needs an `https.Agent`.
 */
export function requestOnAgent(
  agent: Agent,
  url: URL,
  method: string,
  token: string,
  payload: string | undefined,
): Promise<{ status: number; body: Record<string, any> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: parseBody(text) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** A gateway's own answer (an HTML error page, say) is no JSON: kept as its text. */
function parseBody(text: string): Record<string, any> {
  if (!text) return {};
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return { text };
  }
}

/**
 * Which limit refused a 429: the concurrency limiter's (contract §25: its `message` names the
 * organization's requests in flight, or those running database statements) or another one (the
 * request budget, a quota, a route's own rate; API Gateway's stage throttle, the edge).
 */
export type Refusal = 'concurrency' | 'other';

export function refusalOf(answer: { status: number; body: Record<string, any> }): Refusal | undefined {
  if (answer.status !== 429) return undefined;
  const message = typeof answer.body.message === 'string' ? answer.body.message : '';
  return /requests (in flight|running database statements)/.test(message) ? 'concurrency' : 'other';
}
