import { performance } from 'node:perf_hooks';
import { ATTEMPT_TIMEOUT_MS } from '#shared/adapters/aws-clients.ts';
import { single, summarize, type Row } from '#bench/report.ts';
import { callLocalApi } from '#bench/support/local-api.ts';
import type { Measurement, MeasurementContext } from '#bench/support/measurement.ts';

/**
 * 14. Gray failure: one DynamoDB attempt in ten hangs. The functions reach DynamoDB Local through
 * a fault proxy (test/support/fault-proxy.ts) that, in `hang-every-10th-request` mode, swallows
 * every tenth request (counted across connections, the pollers' and the e-mail event counter's
 * included) and never answers it, while the others pass. `POST /v1/onboarding-token` (a token
 * with its e-mail: four to six DynamoDB calls, and one or two in the counter behind it) is sent
 * one request at a time through the router, first with the proxy passing everything (the
 * baseline, same run), then with the hangs. Each hung attempt must be cut off at its attempt
 * timeout (1 s for an item call) and retried, so the p99 stays under twice that and no request
 * answers 503.
 */
const WARMUP = 20;
const QUIET_RUNS = 100;
const HANGING_RUNS = 200;
const P99_MAX_MS = 2 * ATTEMPT_TIMEOUT_MS.dynamoDbItem;

export default {
  title: '14 one attempt in ten hangs',
  async run(context: MeasurementContext): Promise<Row[]> {
    const stack = await context.localStack();
    const proxy = await context.dynamoDbFaults();
    const orgId = `bench-gray-${context.runId}`;
    const token = await stack.issueToken({ orgId });
    let created = 0;
    const createToken = async (): Promise<{ status: number; elapsedMs: number }> => {
      created += 1;
      const startedAt = performance.now();
      const { status } = await callLocalApi(stack.baseUrl, 'POST', '/v1/onboarding-token', {
        token,
        body: { email: `gray-${context.runId}-${created}@example.com`, first_name: 'Ada', last_name: 'Gray' },
      });
      return { status, elapsedMs: performance.now() - startedAt };
    };
    const series = async (runs: number) => {
      const answers = [];
      for (let i = 0; i < runs; i++) answers.push(await createToken());
      return answers;
    };

    for (const { status } of await series(WARMUP)) {
      if (status !== 201) throw new Error(`warm-up POST /v1/onboarding-token: ${status}`);
    }
    const quiet = await series(QUIET_RUNS);
    await proxy.setMode('hang-every-10th-request');
    const hanging = await series(HANGING_RUNS);
    const { hungRequests } = proxy.currentStats();
    await proxy.setMode('pass');
    context.log(`hung ${hungRequests} DynamoDB requests during ${HANGING_RUNS} token creates`);

    const count = (answers: typeof quiet, status: number) =>
      answers.filter((answer) => answer.status === status).length;
    const measurement = '14 one attempt in ten hangs';
    return [
      {
        measurement,
        subject: 'CreateOnboardingToken, 1 DynamoDB attempt in 10 hangs',
        unit: 'ms',
        value: summarize(
          hanging.map((answer) => answer.elapsedMs),
          { p99: true },
        ),
        baseline: {
          subject: 'no attempt hangs',
          value: summarize(
            quiet.map((answer) => answer.elapsedMs),
            { p99: true },
          ),
        },
        budget: { on: 'p99', max: P99_MAX_MS },
        note: `p99 under 2x the ${ATTEMPT_TIMEOUT_MS.dynamoDbItem} ms attempt timeout; ${hungRequests} attempts hung`,
      },
      {
        measurement,
        subject: 'CreateOnboardingToken 503s, 1 DynamoDB attempt in 10 hangs',
        unit: 'count',
        value: single(count(hanging, 503)),
        budget: { on: 'median', max: 0 },
        note: `${count(hanging, 201)} of ${HANGING_RUNS} answered 201 (baseline: ${count(quiet, 201)} of ${QUIET_RUNS})`,
      },
    ];
  },
} satisfies Measurement;
