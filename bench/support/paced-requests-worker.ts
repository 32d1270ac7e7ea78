import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { refusalOf, requestOnAgent, type Refusal } from './agent-request.ts';

/**
 * A load generator on a thread of its own: fires `perSecond` requests a second for `seconds`
 * without waiting for answers, and posts back every answer (PacedAnswer; status 0: the connection
 * failed).
 * Run through `runTimedPacedRequests`, so a flood's client work does not share the event loop of the
 * local stack it measures (in AWS the callers are other machines). It imports only
 * ./agent-request.ts, so Node's own type stripping runs it without a loader.
 */
export interface PacedRequests {
  baseUrl: string;
  token: string;
  method: string;
  path: string;
  body?: unknown;
  perSecond: number;
  seconds: number;
}

/** One answer; its times in epoch milliseconds (`performance.timeOrigin + performance.now()`, comparable across threads). */
export interface PacedAnswer {
  status: number;
  /** A 429's refusing limit: the concurrency limiter's or another. */
  refusal?: Refusal;
  sentAt: number;
  answeredAt: number;
}

const plan = workerData as PacedRequests;
const epochNow = () => performance.timeOrigin + performance.now();
const agent = plan.baseUrl.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
const payload = plan.body === undefined ? undefined : JSON.stringify(plan.body);

/** One request; its status (0 when the connection failed) and times. */
const send = (): Promise<PacedAnswer> => {
  const sentAt = epochNow();
  return requestOnAgent(agent, new URL(plan.path, plan.baseUrl), plan.method, plan.token, payload).then(
    (answer) => {
      const refusal = refusalOf(answer);
      return { status: answer.status, ...(refusal ? { refusal } : {}), sentAt, answeredAt: epochNow() };
    },
    () => ({ status: 0, sentAt, answeredAt: epochNow() }),
  );
};

const statuses: Array<Promise<PacedAnswer>> = [];
const interval = 1000 / plan.perSecond;
const ends = performance.now() + plan.seconds * 1000;
for (let next = performance.now(); next < ends; next += interval) {
  statuses.push(send());
  const wait = next + interval - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
parentPort!.postMessage(await Promise.all(statuses));
agent.destroy();
