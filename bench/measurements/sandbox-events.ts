import { performance } from 'node:perf_hooks';
import { ALL_SCOPES, tenantMachineClientId } from '#local/dev-keys.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { summarize, type Row } from '#bench/report.ts';
import { callLocalApi } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';

/**
 * 19. `POST /v1/sandbox/events {type: report.completed}` on the local stack (contract §23,
 * docs/sandbox.md#triggered-events): from the 202 until the signed message reaches a receiver on
 * loopback, through the router, the route's handler, the report queue and worker (a `sbx-clear`
 * job rendered, signed and stored), the webhook queue's fan-out and the delivery attempt, as the
 * local stack runs them. One trigger at a time: a scenario user holds one open job at once.
 */
const TRIGGERS = 12;
const WARMUP = 2;
const MAX_RECEIVED_MS = 5_000;

export default {
  title: '19 sandbox event',
  async run(context) {
    const stack = await context.localStack();
    const orgId = `bench-events-${context.runId}`;
    const token = await stack.issueToken({
      orgId,
      scopes: [...ALL_SCOPES, SANDBOX_SCOPE],
      claims: { client_id: tenantMachineClientId({ orgId, mode: 'sandbox' }) },
    });
    const receiver = await startWebhookReceiver();
    context.onClose(() => receiver.close());
    const registered = await callLocalApi(stack.baseUrl, 'POST', '/v1/webhooks', {
      token,
      body: { url: receiver.url, events: ['report.completed'] },
    });
    if (registered.status !== 201) throw new Error(`POST /v1/webhooks: ${registered.status}`);

    const times: number[] = [];
    for (let i = 0; i < WARMUP + TRIGGERS; i++) {
      const answered = await callLocalApi(stack.baseUrl, 'POST', '/v1/sandbox/events', {
        token,
        body: { type: 'report.completed' },
      });
      const acceptedAt = performance.now();
      if (answered.status !== 202) throw new Error(`POST /v1/sandbox/events: ${answered.status}`);
      await receiver.waitFor(i + 1, 4 * MAX_RECEIVED_MS);
      if (i >= WARMUP) times.push(performance.now() - acceptedAt);
    }
    return [
      {
        measurement: this.title,
        subject: `report.completed triggered until received, ${TRIGGERS} triggers`,
        unit: 'ms',
        value: summarize(times, { p99: true }),
        budget: { on: 'median', max: MAX_RECEIVED_MS },
        note: 'sbx-clear job rendered, signed and stored, then fanned out and delivered to a loopback receiver',
      },
    ] satisfies Row[];
  },
} satisfies Measurement;
