import { performance } from 'node:perf_hooks';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { usersTable } from '../../lib/table-definitions.ts';
import { generateDemoUsers } from '../../local/demo-users.ts';
import { importUserLines } from '../../scripts/users-import/import-user-lines.ts';
import { summarize, type Row } from '../report.ts';
import { callLocalApi } from '../support/local-api.ts';
import type { Measurement } from '../support/measurement.ts';

/**
 * 7. POST /v1/user-status on DynamoDB Local with a 10,000-user organization (imported through
 * the users:import path): three representative filtered queries, each answered through the
 * router and the real handler, against the floor for reading that organization at all: a bare
 * Query paging through the same partition of the `byCreatedAt` index with the SDK, no filter,
 * no projection. Rounds interleave the four, so load hits them alike.
 */
const USERS = 10_000;
const ROUNDS = 5;
const WARMUP_ROUNDS = 1;
const MAX_RATIO = 1.3;

const QUERIES = [
  { name: 'registration_status category', body: { filters: { registration_status: 'pending' } } },
  {
    name: 'age range + data_sharing_agreed',
    body: { filters: { age: { gte: 18, lt: 30 }, data_sharing_agreed: true } },
  },
  {
    name: 'created_at range + country',
    body: {
      filters: { created_at: { gte: '2025-04-01', lt: '2026-04-01' }, country: 'Germany' },
      pagination: { limit: 100 },
    },
  },
] as const;

export default {
  title: '7 user-status queries',
  async run(context) {
    const stack = await context.localStack();
    const documents = await context.localDocuments();
    const tableName = stack.env[usersTable.envVar]!;
    const orgId = `bench-users-${context.runId}`;

    const importStarted = performance.now();
    const lines = generateDemoUsers({ orgId, count: USERS, organizationName: 'Benchmark Users Ltd' }).map((user) =>
      JSON.stringify(user),
    );
    const counts = await importUserLines({ lines: toAsync(lines), orgId, documents, tableName });
    if (counts.imported !== USERS) throw new Error(`imported ${counts.imported} of ${USERS} users`);
    context.log(`user status: ${USERS} users imported in ${((performance.now() - importStarted) / 1000).toFixed(1)} s`);

    const token = await stack.issueToken({ orgId, scopes: ['users:read'] });
    const bareQuery = async (): Promise<void> => {
      let items = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'byCreatedAt',
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `ORG#${orgId}` },
            ExclusiveStartKey: startKey,
          }),
        );
        items += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      if (items !== USERS) throw new Error(`the bare query read ${items} users, not ${USERS}`);
    };
    const filtered = QUERIES.map((query) => async (): Promise<void> => {
      const { status, body } = await callLocalApi(stack.baseUrl, 'POST', '/v1/user-status', {
        token,
        body: query.body,
      });
      if (status !== 200) throw new Error(`${query.name}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    });

    const subjects = [bareQuery, ...filtered];
    const samples: number[][] = subjects.map(() => []);
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      for (let k = 0; k < subjects.length; k++) {
        const index = (k + round) % subjects.length;
        const startedAt = performance.now();
        await subjects[index]!();
        if (round >= WARMUP_ROUNDS) samples[index]!.push(performance.now() - startedAt);
      }
    }
    const baseline = { subject: 'bare paginated Query', value: summarize(samples[0]!) };
    return QUERIES.map((query, index): Row => ({
      measurement: this.title,
      subject: query.name,
      unit: 'ms',
      value: summarize(samples[index + 1]!),
      baseline,
      budget: { on: 'ratio', max: MAX_RATIO },
    }));
  },
} satisfies Measurement;

async function* toAsync(lines: readonly string[]): AsyncIterable<string> {
  yield* lines;
}
