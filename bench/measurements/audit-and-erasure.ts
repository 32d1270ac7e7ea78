import { randomUUID } from 'node:crypto';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { performance } from 'node:perf_hooks';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoDbClients, createS3Client } from '#shared/adapters/aws-clients.ts';
import { DynamoDbAuditTrail } from '#shared/adapters/dynamodb/audit-trail-store.ts';
import { organizationPartition } from '#shared/adapters/dynamodb/keys.ts';
import { DynamoDbReportJobStore } from '#shared/adapters/dynamodb/report-job-store.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { pdfReportRenderer } from '#shared/adapters/pdf/render-user-report.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import type { AuditEvent } from '#shared/domain/audit/audit-event.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import { reportObjectKey, type ReportJob } from '#shared/domain/reports/report-job.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { single, summarize, type Row } from '#bench/report.ts';
import { callLocalApi, seedOrganization } from '#bench/support/local-api.ts';
import type { Measurement, MeasurementContext } from '#bench/support/measurement.ts';

/**
 * 11. Contract §16's two budgets on the local stack.
 *
 * **The audit write on a token create.** `POST /v1/onboarding-token` through the router and the
 * deployed handler (`functions/create-onboarding-token.ts`, loaded once by the router as a warm
 * Lambda), each request with a new e-mail (one live token per address), in pairs: once as deployed,
 * once with the audit write removed. The write is removed by swapping
 * `DynamoDbAuditTrail.prototype.append` for a no-op between requests (never during one: requests go
 * one at a time): the handler module instance, its warm SDK clients and JIT state, the middleware,
 * the token store, the SES call and even the building of the audit event (id, clock, target) are the
 * same in both variants; what differs is exactly the trail's conditional PutItem on DynamoDB Local.
 * (A second instance of the entry point, imported afresh with a no-op recorder injected, would
 * compare two module instances with their own SDK clients, connections and JIT state; the swap
 * keeps one.)
 * That the swap took is checked: the no-op counts its calls, and afterwards every token created
 * with the write has its one `onboarding_token.created` event in the trail and every token created
 * without has none (read through `GET /v1/audit-events?targetId=`). Pairs are counterbalanced
 * (ABBA: the first of each pair alternates), so load and whatever the emulator does after a
 * request burden both alike. Budget: the median of the paired differences (with - without)
 * <= 5 ms. In the same rounds, the exact call the handler makes (`DynamoDbAuditTrail.append`,
 * a conditional PutItem of a `onboarding_token.created` event) is timed alone against the same
 * DynamoDB Local, the write's cost without the create's variance around it: also <= 5 ms p50. Its
 * baseline, in the same rounds, is a consistent GetItem on the same table with the same client:
 * the emulator's floor for one round trip (3-4 ms on two busy cores), most of the write's cost.
 *
 * **Erasure of a user with 20 reports.** One organization; each measured user has 20 COMPLETE
 * report jobs with their PDFs in S3 and 3 onboarding tokens issued to their e-mail. The jobs are
 * written straight into the table (never queued, so the stack's worker does not take them; the
 * API allows one open job per user and 10 requests per 10 minutes per organization) and then
 * processed by the worker's own use case (`processReportJob`: the user read as `users_reader`, a
 * real render, the PDF stored in S3, COMPLETE written): the records and objects are the worker's.
 * The tokens go through the API: create, revoke, create, revoke, create (2 revoked, 1 live). Then
 * `DELETE /v1/users/{id}` through the API, one user at a time, interleaved (ABBA) with the erasure
 * of a user who has no jobs and no tokens (the baseline: the erasure's fixed cost). Budget:
 * median <= 2 s over 5 users. One warm-up user of each kind goes first (the route's module load).
 * An erasure reads the organization's whole job index (filtered by user), so the measured ones
 * read 102, 82, 62, 42 and 22 job entries (the bystander's 2 among them). Checked afterwards:
 * each answered 204 and a second DELETE 404; none of the user's jobs is readable or listed; none
 * of their PDFs is in the bucket; no token, pointer or e-mail guard of their e-mail is left in the
 * organization's partition; one `user.erased` event names them; and a bystander user of the same
 * organization (2 jobs, 1 token) still has everything.
 */
const AUDIT_PAIRS = 100;
const AUDIT_WARMUP_PAIRS = 3;
const MAX_AUDIT_ADDED_MS = 5;
const ERASED_USERS = 5;
const REPORTS_PER_USER = 20;
const TOKENS_PER_USER = 3;
const BYSTANDER_REPORTS = 2;
const MAX_ERASURE_MS = 2_000;

export default {
  title: '11 audit and erasure',
  async run(context) {
    const audit = await measureAuditWrite(context);
    const erasure = await measureErasure(context);
    return [
      {
        measurement: this.title,
        subject: `POST /v1/onboarding-token with the audit write (${AUDIT_PAIRS} creates)`,
        unit: 'ms',
        value: summarize(audit.withMs, { p99: true }),
        baseline: { subject: 'the same without it', value: summarize(audit.withoutMs, { p99: true }) },
      },
      {
        measurement: this.title,
        subject: `added to a token create by the audit write (median of ${AUDIT_PAIRS} paired differences)`,
        unit: 'ms',
        value: summarize(
          audit.withMs.map((withMs, i) => withMs - audit.withoutMs[i]!),
          { p99: false },
        ),
        budget: { on: 'median', max: MAX_AUDIT_ADDED_MS },
        note: `difference of the medians: ${(summarize(audit.withMs).median - summarize(audit.withoutMs).median).toFixed(2)} ms`,
      },
      {
        measurement: this.title,
        subject: `DynamoDbAuditTrail.append alone (${AUDIT_PAIRS} calls, same rounds)`,
        unit: 'ms',
        value: summarize(audit.appendMs, { p99: true }),
        baseline: { subject: 'GetItem, same table', value: summarize(audit.floorMs) },
        budget: { on: 'median', max: MAX_AUDIT_ADDED_MS },
      },
      {
        measurement: this.title,
        subject: 'token creates whose audit events are not as expected (1 with, 0 without)',
        unit: 'count',
        value: single(audit.mismatches.length),
        budget: { on: 'median', max: 0 },
        note:
          `${AUDIT_PAIRS + AUDIT_WARMUP_PAIRS} creates of each variant checked; the no-op append ran ` +
          `${audit.skippedAppends} times` +
          (audit.mismatches.length > 0 ? `; ${audit.mismatches.slice(0, 5).join('; ')}` : ''),
      },
      {
        measurement: this.title,
        subject: `DELETE /v1/users/{id}, ${REPORTS_PER_USER} reports (PDFs) + ${TOKENS_PER_USER} tokens (${ERASED_USERS} users)`,
        unit: 'ms',
        value: summarize(erasure.loadedMs, { p99: true }),
        baseline: { subject: 'a user with nothing else', value: summarize(erasure.bareMs) },
        budget: { on: 'median', max: MAX_ERASURE_MS },
        note: `each: ${erasure.loadedMs.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      },
      {
        measurement: this.title,
        subject: "erasure leftovers (the users' jobs, PDFs, tokens; statuses; the bystander's data)",
        unit: 'count',
        value: single(erasure.problems.length),
        budget: { on: 'median', max: 0 },
        note:
          erasure.problems.length > 0
            ? erasure.problems.slice(0, 5).join('; ')
            : `${ERASED_USERS + 1} users with ${REPORTS_PER_USER} jobs and PDFs and ${TOKENS_PER_USER} tokens each, ` +
              `${ERASED_USERS + 1} with none: 204, then 404; nothing of theirs left; user.erased recorded; bystander intact`,
      },
    ] satisfies Row[];
  },
} satisfies Measurement;

// ---------------------------------------------------------------------------------------------
// The audit write

interface AuditTimes {
  withMs: number[];
  withoutMs: number[];
  appendMs: number[];
  floorMs: number[];
  skippedAppends: number;
  mismatches: string[];
}

async function measureAuditWrite(context: MeasurementContext): Promise<AuditTimes> {
  const stack = await context.localStack();
  const orgId = `bench-audit-${context.runId}`;
  const token = await stack.issueToken({ orgId });
  const auditTable = stack.env.AUDIT_EVENTS_TABLE_NAME!;
  const { documents } = createDynamoDbClients();
  const trail = new DynamoDbAuditTrail(documents, auditTable);
  /** The emulator's floor: one consistent GetItem (of a key never written) on the same table, same client. */
  const floorCall = () =>
    documents.send(
      new GetCommand({
        TableName: auditTable,
        Key: { pk: organizationPartition(orgId), sk: 'NONE' },
        ConsistentRead: true,
      }),
    );

  // Every DynamoDbAuditTrail the process holds (the handler's among them) writes through this.
  const prototype = DynamoDbAuditTrail.prototype;
  const realAppend = prototype.append;
  let skippedAppends = 0;
  const noAppend: typeof realAppend = async () => {
    skippedAppends += 1;
  };

  let created = 0;
  const createToken = async (): Promise<string> => {
    created += 1;
    const { status, body } = await callLocalApi(stack.baseUrl, 'POST', '/v1/onboarding-token', {
      token,
      body: { email: `bench-${context.runId}-${created}@example.com`, first_name: 'Ada', last_name: 'Bench' },
    });
    if (status !== 201) throw new Error(`POST /v1/onboarding-token: ${status} ${JSON.stringify(body)}`);
    return body.tokenId as string;
  };

  const times: AuditTimes = { withMs: [], withoutMs: [], appendMs: [], floorMs: [], skippedAppends: 0, mismatches: [] };
  const tokenIds = { with: [] as string[], without: [] as string[] };
  try {
    for (let i = 0; i < 2 * (AUDIT_WARMUP_PAIRS + AUDIT_PAIRS); i++) {
      const pairStartsWithout = Math.floor(i / 2) % 2 === 0;
      const variant = (i % 2 === 0) === pairStartsWithout ? 'without' : 'with';
      prototype.append = variant === 'with' ? realAppend : noAppend;
      const startedAt = performance.now();
      const tokenId = await createToken();
      const elapsed = performance.now() - startedAt;
      prototype.append = realAppend;
      tokenIds[variant].push(tokenId);
      const timed = i >= 2 * AUDIT_WARMUP_PAIRS;
      if (timed) times[variant === 'with' ? 'withMs' : 'withoutMs'].push(elapsed);
      if (i % 2 === 1) {
        // After each pair, the handler's very call on its own: an onboarding_token.created event.
        const event: AuditEvent = {
          eventId: randomUUID(),
          occurredAt: new Date().toISOString(),
          action: 'onboarding_token.created',
          actor: { sub: 'bench', clientId: null },
          target: { type: 'onboarding_token', id: randomUUID() },
          requestId: randomUUID(),
          outcome: 'success',
        };
        // Which goes first alternates, as the creates do.
        for (const call of pairStartsWithout ? (['append', 'floor'] as const) : (['floor', 'append'] as const)) {
          const callStartedAt = performance.now();
          await (call === 'append' ? trail.append(orgId, event) : floorCall());
          if (timed) times[call === 'append' ? 'appendMs' : 'floorMs'].push(performance.now() - callStartedAt);
        }
      }
    }
  } finally {
    prototype.append = realAppend;
  }
  times.skippedAppends = skippedAppends;
  if (skippedAppends !== tokenIds.without.length)
    times.mismatches.push(`the no-op append ran ${skippedAppends} times for ${tokenIds.without.length} creates`);

  // The variants differ as intended: one event per create with the write, none without.
  for (const [variant, expected] of [
    ['with', 1],
    ['without', 0],
  ] as const) {
    for (const tokenId of tokenIds[variant]) {
      const { status, body } = await callLocalApi(
        stack.baseUrl,
        'GET',
        `/v1/audit-events?targetId=${encodeURIComponent(tokenId)}`,
        { token },
      );
      const events = (body.results ?? []) as AuditEvent[];
      const matching = events.filter((event) => event.action === 'onboarding_token.created').length;
      if (status !== 200 || events.length !== expected || matching !== expected)
        times.mismatches.push(`token ${tokenId} (${variant}): ${status}, ${events.length} events`);
    }
  }
  context.log(`audit: ${times.withMs.length} pairs timed, ${times.mismatches.length} mismatches`);
  return times;
}

// ---------------------------------------------------------------------------------------------
// Erasure

interface ErasureTimes {
  loadedMs: number[];
  bareMs: number[];
  problems: string[];
}

interface LoadedUser {
  user: UserRecord;
  email: string;
  jobIds: string[];
  tokenIds: string[];
}

async function measureErasure(context: MeasurementContext): Promise<ErasureTimes> {
  const stack = await context.localStack();
  const orgId = `bench-erasure-${context.runId}`;
  const token = await stack.issueToken({ orgId });
  // Loaded: a warm-up and the measured ones; bare: the same; and one bystander nobody erases.
  const users = await seedOrganization(context, orgId, 2 * (ERASED_USERS + 1) + 1);
  if (users.some((user) => !user.email)) throw new Error('a demo user has no e-mail');
  const loadedUsers = users.slice(0, ERASED_USERS + 1);
  const bareUsers = users.slice(ERASED_USERS + 1, 2 * (ERASED_USERS + 1));
  const bystanderUser = users.at(-1)!;

  const dynamoDb = createDynamoDbClients();
  const jobsTable = stack.env.REPORT_JOBS_TABLE_NAME!;
  const tokensTable = stack.env.ONBOARDING_TOKENS_TABLE_NAME!;
  const bucket = stack.env.REPORTS_BUCKET_NAME!;
  const store = new DynamoDbReportJobStore(dynamoDb.documents, jobsTable);
  const s3 = createS3Client();
  const { host, port, reader } = stack.usersDatabase;
  const usersDatabase = PostgresUsersDatabase.withPassword({ host, port, ...reader, maxConnections: 1 });
  context.onClose(() => usersDatabase.close());
  const processJob = processReportJob({
    jobs: store,
    users: new PostgresUserDirectory(usersDatabase),
    storage: new S3ReportStorage(s3, bucket),
    render: pdfReportRenderer(loadReportFonts(), undefined, reportSignaturePlaceholder()),
    sign: padesReportSigner(new LocalReportSigningKey(stack.env.REPORT_SIGNING_KEY_FILE!)),
    clock: systemClock,
    templateVersion: REPORT_TEMPLATE_VERSION,
  });

  /** `count` COMPLETE jobs of the user, one after the other (one open job per user), by the worker's use case. */
  const writeCompleteJobs = async (user: UserRecord, count: number): Promise<string[]> => {
    const jobIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const now = new Date().toISOString();
      const job: ReportJob = {
        jobId: randomUUID(),
        orgId,
        userId: user.id,
        status: 'PENDING',
        templateVersion: REPORT_TEMPLATE_VERSION,
        createdAt: now,
        updatedAt: now,
      };
      await store.createOpenJob(job);
      const result = await processJob({ orgId, jobId: job.jobId }, { isFinalAttempt: false, leaseMs: 60_000 });
      if (result.outcome !== 'completed') throw new Error(`seeding job ${job.jobId}: ${result.outcome}`);
      jobIds.push(job.jobId);
    }
    return jobIds;
  };

  const call = (method: string, path: string, body?: unknown) =>
    callLocalApi(stack.baseUrl, method, path, { token, ...(body === undefined ? {} : { body }) });

  /** `count` tokens to the user's e-mail through the API: all but the last revoked (one live token per address). */
  const issueTokens = async (user: UserRecord, count: number): Promise<string[]> => {
    const tokenIds: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await call('POST', '/v1/onboarding-token', {
        email: user.email,
        first_name: user.first_name ?? 'Ada',
        last_name: user.last_name ?? 'Bench',
      });
      if (created.status !== 201)
        throw new Error(`token for ${user.id}: ${created.status} ${JSON.stringify(created.body)}`);
      const tokenId = created.body.tokenId as string;
      tokenIds.push(tokenId);
      if (i < count - 1) {
        const revoked = await call('DELETE', `/v1/onboarding-tokens/${tokenId}`);
        if (revoked.status !== 204) throw new Error(`revoking ${tokenId}: ${revoked.status}`);
      }
    }
    return tokenIds;
  };

  const seedStartedAt = performance.now();
  const loaded: LoadedUser[] = [];
  for (const user of loadedUsers) {
    loaded.push({
      user,
      email: user.email!.trim().toLowerCase(),
      jobIds: await writeCompleteJobs(user, REPORTS_PER_USER),
      tokenIds: await issueTokens(user, TOKENS_PER_USER),
    });
  }
  const bystander: LoadedUser = {
    user: bystanderUser,
    email: bystanderUser.email!.trim().toLowerCase(),
    jobIds: await writeCompleteJobs(bystanderUser, BYSTANDER_REPORTS),
    tokenIds: await issueTokens(bystanderUser, 1),
  };
  context.log(
    `erasure: seeded ${loaded.length} users with ${REPORTS_PER_USER} jobs and ${TOKENS_PER_USER} tokens each in ` +
      `${((performance.now() - seedStartedAt) / 1000).toFixed(1)} s`,
  );

  /** What is left of the user: listed and readable jobs, PDFs in the bucket, token items naming them. */
  const remainsOf = async (subject: LoadedUser, pdfKeys: ReadonlySet<string>) => {
    const listed = await store.listByOrganization(orgId, {
      limit: 1_000,
      cursor: undefined,
      userId: subject.user.id,
      now: new Date(),
    });
    let readable = 0;
    for (const jobId of subject.jobIds) if ((await store.get(jobId))?.status === 'COMPLETE') readable += 1;
    const pdfs = subject.jobIds.filter((jobId) => pdfKeys.has(reportObjectKey(orgId, jobId))).length;
    const tokenItems = (await partitionItems(tokensTable, orgId)).filter(
      (item) =>
        item.email === subject.email ||
        item.sk === `EMAIL#${subject.email}` ||
        subject.tokenIds.some((tokenId) => String(item.tokenSk ?? '').endsWith(tokenId)),
    );
    return { listed: listed.jobs.length, readable, pdfs, tokenItems: tokenItems.length };
  };
  const partitionItems = async (tableName: string, partitionOrg: string) => {
    const items: Array<Record<string, unknown>> = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await dynamoDb.documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': organizationPartition(partitionOrg) },
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  };
  const storedPdfKeys = async (): Promise<Set<string>> => {
    const keys = new Set<string>();
    let continuationToken: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: `reports/${orgId}/`,
          ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
        }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.add(object.Key);
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return keys;
  };

  // The seed is what it should be before anything is erased.
  const problems: string[] = [];
  const seededPdfs = await storedPdfKeys();
  for (const subject of [...loaded, bystander]) {
    const seeded = await remainsOf(subject, seededPdfs);
    const jobs = subject.jobIds.length;
    // Each token has its record and two pointers; the live one also the e-mail guard.
    const tokenItems = 3 * subject.tokenIds.length + 1;
    if (seeded.listed !== jobs || seeded.readable !== jobs || seeded.pdfs !== jobs || seeded.tokenItems !== tokenItems)
      throw new Error(`seed of ${subject.user.id} incomplete: ${JSON.stringify(seeded)}`);
  }

  const erase = async (userId: string): Promise<number> => {
    const startedAt = performance.now();
    const { status, body } = await call('DELETE', `/v1/users/${encodeURIComponent(userId)}`);
    const elapsed = performance.now() - startedAt;
    if (status !== 204) problems.push(`DELETE ${userId}: ${status} ${JSON.stringify(body)}`);
    return elapsed;
  };
  const times: ErasureTimes = { loadedMs: [], bareMs: [], problems };
  // Warm-up: one of each kind (the route's first call loads its module and connects its pool).
  await erase(bareUsers[0]!.id);
  await erase(loaded[0]!.user.id);
  for (let i = 0; i < 2 * ERASED_USERS; i++) {
    const pairStartsBare = Math.floor(i / 2) % 2 === 0;
    const index = 1 + Math.floor(i / 2);
    if ((i % 2 === 0) === pairStartsBare) times.bareMs.push(await erase(bareUsers[index]!.id));
    else times.loadedMs.push(await erase(loaded[index]!.user.id));
  }
  context.log(`erasure: ${times.loadedMs.length} loaded and ${times.bareMs.length} bare users erased`);

  // Nothing of the erased users is left; the bystander has everything.
  const pdfsAfter = await storedPdfKeys();
  for (const subject of loaded) {
    const left = await remainsOf(subject, pdfsAfter);
    if (left.listed + left.readable + left.pdfs + left.tokenItems > 0)
      problems.push(`${subject.user.id} left: ${JSON.stringify(left)}`);
  }
  for (const user of [...loaded.map((subject) => subject.user), ...bareUsers]) {
    const again = await call('DELETE', `/v1/users/${encodeURIComponent(user.id)}`);
    if (again.status !== 404) problems.push(`second DELETE ${user.id}: ${again.status}`);
    const events = await call('GET', `/v1/audit-events?action=user.erased&targetId=${encodeURIComponent(user.id)}`);
    const count = ((events.body.results ?? []) as AuditEvent[]).length;
    if (events.status !== 200 || count !== 1) problems.push(`user.erased for ${user.id}: ${events.status}, ${count}`);
  }
  const kept = await remainsOf(bystander, pdfsAfter);
  const bystanderJobs = bystander.jobIds.length;
  if (
    kept.listed !== bystanderJobs ||
    kept.readable !== bystanderJobs ||
    kept.pdfs !== bystanderJobs ||
    kept.tokenItems !== 3 * bystander.tokenIds.length + 1
  )
    problems.push(`bystander ${bystander.user.id} lost data: ${JSON.stringify(kept)}`);
  return times;
}
