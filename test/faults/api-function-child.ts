import { buildLambdaContext } from '#local/lambda-invocation.ts';
import { apiEvent } from '#test/support/api-event.ts';

/**
 * One user-status invocation in a process of its own, so a fault test can kill it while it holds
 * its organization's concurrency slot: a cold start of the function (the environment is the
 * local stack's, given by the parent), one request with the bearer token CHILD_TOKEN and a
 * CHILD_TIMEOUT_MS function timeout (the slot's deadline). Prints the answer's status if it ever
 * gets one.
 */

const { CHILD_TOKEN, CHILD_TIMEOUT_MS } = process.env;
if (!CHILD_TOKEN || !CHILD_TIMEOUT_MS) throw new Error('set CHILD_TOKEN and CHILD_TIMEOUT_MS');

const { handler } = await import('#functions/query-user-status.ts');
const answer = await handler(
  apiEvent({
    method: 'POST',
    path: '/v1/user-status',
    headers: { authorization: `Bearer ${CHILD_TOKEN}`, 'content-type': 'application/json' },
    body: { filters: {}, result_keys: ['id'], pagination: { limit: 1 } },
  }),
  buildLambdaContext('QueryUserStatus', Number(CHILD_TIMEOUT_MS)),
);
process.stdout.write(`${JSON.stringify({ statusCode: (answer as { statusCode?: number }).statusCode })}\n`);
process.exit(0);
