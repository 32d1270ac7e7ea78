import { request, type Agent } from 'node:http';

/**
 * One JSON API request on a keep-alive agent, answered with its status and parsed body (`{}` when
 * empty). Imports nothing of the repository's and uses only erasable TypeScript, so the load
 * generator's worker thread (./paced-requests-worker.ts) runs it without a loader.
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
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, any>) : {} });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}
