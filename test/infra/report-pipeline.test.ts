import {
  DEAD_LETTER_QUEUE_VISIBILITY_SECONDS,
  REPORT_QUEUE_VISIBILITY_SECONDS,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/queue/report-pipeline-timing.ts';
import { REPORT_DEADLINE_MS } from '#shared/domain/reports/report-job.ts';
import { readFileSync } from 'node:fs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyReportFonts, reportObjectPrefix } from '#lib/report-pipeline-construct.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { allReportFontFiles, installedPath } from '#shared/adapters/pdf/report-fonts.ts';
import { reportObjectKey } from '#shared/domain/reports/report-job.ts';
import { MAX_RECEIVES } from '#shared/queue/report-job-messages.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import {
  actionsOf,
  alarmedFunctionOf,
  apartFromRequestBudget,
  namesLiveAliasOf,
  resourcesOf,
  templateQueries,
  type Statement,
  wholeTemplateOf,
} from './template-queries.ts';

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  // The template is all these tests read: skip esbuild (the bundled worker is checked in service-stack.test.ts).
  ({ stack } = buildServiceStack({ bundle: false }));
  queries = templateQueries(wholeTemplateOf(stack));
});

const reports = () => stack.reports;
const routeFunction = (name: string) => {
  const fn = stack.routeFunctions.get(name);
  if (!fn) throw new Error(`no route function ${name}`);
  return fn;
};
const reportObjects = () => `<${logicalIdOf(reports().bucket)}.Arn>/reports/*`;
const arnOf = (construct: Parameters<typeof logicalIdOf>[0]) => ({ 'Fn::GetAtt': [logicalIdOf(construct), 'Arn'] });

/** Every action the function may take, flattened. */
/** The queues a function may send messages to. */
const sendTargetsOf = (fn: IFunction) =>
  queries
    .statementsOf(fn)
    .filter((statement) => actionsOf(statement).includes('sqs:SendMessage'))
    .map((statement) => statement.Resource);

/**
 * The function's statements but the request budget every authenticated route spends (UpdateItem on
 * the RequestBudgets table alone, service-stack.test.ts "the request budget").
 */
const statementsOfFunction = (fn: IFunction) =>
  apartFromRequestBudget(queries.statementsOf(fn), stack.data.tables.RequestBudgets);

// Active tracing grants every function X-Ray's two actions (checked in service-stack.test.ts).
const actionsOfFunction = (fn: IFunction) =>
  statementsOfFunction(fn)
    .flatMap(actionsOf)
    .filter((action) => !action.startsWith('xray:'));

/** Tables (logical ids) on which the function may take `action`, ignoring index statements. */
const tablesWith = (fn: IFunction, action: string) =>
  statementsOfFunction(fn)
    .filter((statement) => actionsOf(statement).includes(action))
    .flatMap(resourcesOf)
    .filter((resource) => !resource.includes('/index/'))
    .sort();

const tableArn = (id: 'ReportJobs' | 'Idempotency') => `<${logicalIdOf(stack.data.tables[id])}.Arn>`;

/** The users database cluster's ARN, as policies name it. */
const usersClusterArn = () => `<${stack.getLogicalId(stack.usersDatabase.cluster)}.ResourceArn>`;

/** What a function that reads users is told (lib/users-database-construct.ts `grantReadUsers`). */
const usersReaderEnvironment = () => ({
  USERS_DATABASE_HOST: { 'Fn::GetAtt': [stack.getLogicalId(stack.usersDatabase.cluster), 'Endpoint'] },
  USERS_DATABASE_USER: 'users_reader',
  USERS_DATABASE_AUTH: 'dsql',
});

/** The function's Aurora DSQL permissions. */
const dsqlGrantsOf = (fn: IFunction) =>
  queries.statementsFor(fn, 'dsql:').map((statement) => ({
    actions: actionsOf(statement),
    resources: resourcesOf(statement),
  }));

/** Statements of the bucket policy of `bucket` that deny requests. */
function denyStatementsOfBucketPolicy(bucketLogicalId: string): Statement[] {
  const policies = queries
    .ofType('AWS::S3::BucketPolicy')
    .filter(([, policy]) => policy.Properties.Bucket.Ref === bucketLogicalId);
  expect(policies).toHaveLength(1);
  return (policies[0]![1].Properties.PolicyDocument.Statement as Statement[]).filter(
    (statement) => statement.Effect === 'Deny',
  );
}

/** The queue policy statements of one queue that deny requests. */
function denyStatementsOfQueuePolicy(queueLogicalId: string): Statement[] {
  const policies = queries
    .ofType('AWS::SQS::QueuePolicy')
    .filter(([, policy]) =>
      (policy.Properties.Queues as Array<{ Ref: string }>).some((queue) => queue.Ref === queueLogicalId),
    );
  expect(policies).toHaveLength(1);
  return (policies[0]![1].Properties.PolicyDocument.Statement as Statement[]).filter(
    (statement) => statement.Effect === 'Deny',
  );
}

const insecureTransport = { Bool: { 'aws:SecureTransport': 'false' } };

describe('reports bucket', () => {
  it('blocks all public access and disables ACLs', () => {
    const bucket = queries.propertiesOf(reports().bucket);
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
  });

  it('encrypts objects with S3-managed keys', () => {
    expect(queries.propertiesOf(reports().bucket).BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });

  it('refuses every request not made over TLS, on the bucket and its objects', () => {
    const bucketId = logicalIdOf(reports().bucket);
    const denials = denyStatementsOfBucketPolicy(bucketId);
    const tlsOnly = denials.find(
      (statement) => JSON.stringify(statement.Condition) === JSON.stringify(insecureTransport),
    );
    expect(tlsOnly).toMatchObject({ Action: 's3:*', Principal: { AWS: '*' } });
    expect(resourcesOf(tlsOnly!)).toEqual([`<${bucketId}.Arn>`, `<${bucketId}.Arn>/*`]);
  });

  it('expires PDFs under reports/ after the configured 30 days', () => {
    expect(queries.propertiesOf(reports().bucket).LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ Prefix: 'reports/', ExpirationInDays: 30, Status: 'Enabled' }),
    );
    // The lifecycle prefix must cover the keys the worker writes.
    expect(reportObjectKey('org-1', 'job-1').startsWith(reportObjectPrefix)).toBe(true);
  });

  it('takes the expiry from the retentionDays context', () => {
    const { stack: shortLived } = buildServiceStack({ bundle: false, context: { retentionDays: 7 } });
    const template = wholeTemplateOf(shortLived);
    const rules =
      template.toJSON().Resources[logicalIdOf(shortLived.reports.bucket)].Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(expect.objectContaining({ Prefix: 'reports/', ExpirationInDays: 7 }));
  });

  it('is kept when the stack is deleted', () => {
    const bucket = queries.resources[logicalIdOf(reports().bucket)]!;
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.UpdateReplacePolicy).toBe('Retain');
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
  });

  it('writes server access logs to a private, encrypted, TLS-only log bucket that only S3 logging of this bucket may write', () => {
    const logBucketId = logicalIdOf(reports().accessLogsBucket);
    expect(queries.propertiesOf(reports().bucket).LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logBucketId },
      LogFilePrefix: 'reports-bucket/',
    });
    const logBucket = queries.resources[logBucketId]!;
    expect(logBucket.DeletionPolicy).toBe('Retain');
    expect(logBucket.Properties.PublicAccessBlockConfiguration.RestrictPublicBuckets).toBe(true);
    expect(logBucket.Properties.AccessControl).toBeUndefined();
    expect(
      logBucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault
        .SSEAlgorithm,
    ).toBe('AES256');
    expect(
      denyStatementsOfBucketPolicy(logBucketId).some(
        (statement) => JSON.stringify(statement.Condition) === JSON.stringify(insecureTransport),
      ),
    ).toBe(true);
    const [[, policy]] = queries
      .ofType('AWS::S3::BucketPolicy')
      .filter(([, p]) => p.Properties.Bucket.Ref === logBucketId) as [[string, any]];
    const delivery = (policy.Properties.PolicyDocument.Statement as Statement[]).find(
      (statement) => statement.Effect === 'Allow',
    );
    expect(delivery).toMatchObject({
      Action: 's3:PutObject',
      Principal: { Service: 'logging.s3.amazonaws.com' },
      Condition: { ArnLike: { 'aws:SourceArn': arnOf(reports().bucket) } },
    });
  });
});

describe('job queue and dead-letter queue', () => {
  it('encrypt messages with SQS-managed keys and refuse requests not made over TLS', () => {
    for (const queue of [reports().queue, reports().deadLetterQueue]) {
      expect(queries.propertiesOf(queue).SqsManagedSseEnabled).toBe(true);
      const denials = denyStatementsOfQueuePolicy(logicalIdOf(queue));
      expect(
        denials.some((statement) => JSON.stringify(statement.Condition) === JSON.stringify(insecureTransport)),
      ).toBe(true);
    }
  });

  it('move a message to the dead-letter queue after 3 receives, the number the worker treats as final', () => {
    expect(queries.propertiesOf(reports().queue).RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(reports().deadLetterQueue),
      maxReceiveCount: 3,
    });
    expect(MAX_RECEIVES).toBe(3);
  });

  it('retries a job within its 5-minute deadline: every receive fits before the sweep would fail it', () => {
    const visibility = queries.propertiesOf(reports().queue).VisibilityTimeout as number;
    expect(MAX_RECEIVES * visibility).toBeLessThan(REPORT_DEADLINE_MS / 1000);
  });

  it('hide a received message for at least six times the worker timeout', () => {
    const workerTimeout = queries.propertiesOf(reports().worker).Timeout as number;
    expect(queries.propertiesOf(reports().queue).VisibilityTimeout).toBeGreaterThanOrEqual(6 * workerTimeout);
    const handlerTimeout = queries.propertiesOf(reports().deadLetterHandler).Timeout as number;
    expect(queries.propertiesOf(reports().deadLetterQueue).VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * handlerTimeout,
    );
  });

  it('deploys the timings the local stack uses too (shared/queue/report-pipeline-timing.ts)', () => {
    expect(queries.propertiesOf(reports().queue).VisibilityTimeout).toBe(REPORT_QUEUE_VISIBILITY_SECONDS);
    expect(queries.propertiesOf(reports().deadLetterQueue).VisibilityTimeout).toBe(
      DEAD_LETTER_QUEUE_VISIBILITY_SECONDS,
    );
    expect(queries.propertiesOf(reports().worker).Timeout).toBe(WORKER_TIMEOUT_SECONDS);
  });

  it('keeps dead letters 14 days', () => {
    expect(queries.propertiesOf(reports().deadLetterQueue).MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
  });
});

describe('worker', () => {
  it('consumes the job queue in small batches and reports failures per message', () => {
    const mappings = queries
      .ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, mapping]) => namesLiveAliasOf(mapping.Properties.FunctionName, reports().worker));
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0]!;
    expect(mapping.Properties.EventSourceArn).toEqual(arnOf(reports().queue));
    expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.Properties.BatchSize).toBe(5);
  });

  it('runs at most 5 at once, so a burst of jobs cannot take the account’s concurrency, and reserves none by default', () => {
    const worker = queries.propertiesOf(reports().worker);
    // A reservation would fail the first deploy in a new account (first-deploy.test.ts: the context value).
    expect(worker).not.toHaveProperty('ReservedConcurrentExecutions');
    const [[, mapping]] = queries
      .ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, m]) => namesLiveAliasOf(m.Properties.FunctionName, reports().worker)) as [[string, any]];
    // The event source's maximum concurrency is the bound: the poller never invokes more workers.
    expect(mapping.Properties.ScalingConfig.MaximumConcurrency).toBe(5);
  });

  it('has 15 s and 1024 MB to render (three receives of six timeouts each fit the 5-minute deadline)', () => {
    expect(queries.propertiesOf(reports().worker)).toMatchObject({ Timeout: 15, MemorySize: 1024 });
  });

  it('reads its fonts from the folder the bundling copies them to, its table and bucket by name, users from the users database', () => {
    expect(queries.environmentOf(reports().worker)).toMatchObject({
      REPORT_FONTS_DIR: '/var/task/fonts',
      REPORT_JOBS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.ReportJobs) },
      REPORTS_BUCKET_NAME: { Ref: logicalIdOf(reports().bucket) },
      ...usersReaderEnvironment(),
    });
    expect(queries.environmentOf(reports().worker)).not.toHaveProperty('USERS_TABLE_NAME');
  });

  it('may store PDFs under reports/ (and remove one stored for a job it lost), read the signing certificates and nothing else in S3: no report reads', () => {
    const s3 = queries.statementsFor(reports().worker, 's3:');
    expect(s3.map((statement) => [actionsOf(statement).sort(), resourcesOf(statement)])).toEqual([
      [['s3:DeleteObject', 's3:PutObject'], [reportObjects()]],
      // The published certificates of its signing keys, live and sandbox (test/infra/report-signing.test.ts).
      [
        ['s3:GetObject'],
        [
          `<${logicalIdOf(reports().bucket)}.Arn>/report-signing/certificates.pem`,
          `<${logicalIdOf(reports().bucket)}.Arn>/report-signing/sandbox-certificates.pem`,
        ],
      ],
    ]);
  });

  it('may read and write report jobs, only connect to the users database as a reader, and touch no other table', () => {
    const worker = reports().worker;
    expect(tablesWith(worker, 'dynamodb:UpdateItem')).toEqual([tableArn('ReportJobs')]);
    expect(tablesWith(worker, 'dynamodb:GetItem')).toEqual([tableArn('ReportJobs')]);
    expect(dsqlGrantsOf(worker)).toEqual([{ actions: ['dsql:DbConnect'], resources: [usersClusterArn()] }]);
    // Its report events, and its own queue: a sandbox job whose scenario completes later is sent back delayed.
    expect(sendTargetsOf(worker)).toEqual([arnOf(reports().queue), arnOf(stack.webhooks.queue)]);
    expect(queries.environmentOf(worker).REPORT_QUEUE_URL).toEqual({ Ref: logicalIdOf(reports().queue) });
  });
});

describe('dead-letter handler', () => {
  it('consumes the dead-letter queue and reports failures per message', () => {
    const mappings = queries
      .ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, mapping]) => namesLiveAliasOf(mapping.Properties.FunctionName, reports().deadLetterHandler));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: arnOf(reports().deadLetterQueue),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('may read and write report jobs and nothing else', () => {
    const fn = reports().deadLetterHandler;
    expect(tablesWith(fn, 'dynamodb:UpdateItem')).toEqual([tableArn('ReportJobs')]);
    expect(tablesWith(fn, 'dynamodb:GetItem')).toEqual([tableArn('ReportJobs')]);
    expect(actionsOfFunction(fn).filter((action) => action.startsWith('s3:'))).toEqual([]);
    expect(queries.environmentOf(fn)).toMatchObject({
      REPORT_JOBS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.ReportJobs) },
    });
  });
});

describe('sweep', () => {
  it('runs every minute', () => {
    const rule = queries.propertiesOf(reports().sweepSchedule);
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.State).toBe('ENABLED');
    // Its live alias (contract §24).
    expect(rule.Targets).toHaveLength(1);
    expect(namesLiveAliasOf(rule.Targets[0].Arn, reports().sweep)).toBe(true);
    const permissions = queries
      .ofType('AWS::Lambda::Permission')
      .filter(([, permission]) => namesLiveAliasOf(permission.Properties.FunctionName, reports().sweep));
    expect(permissions.map(([, permission]) => permission.Properties)).toEqual([
      expect.objectContaining({ Principal: 'events.amazonaws.com', SourceArn: arnOf(reports().sweepSchedule) }),
    ]);
  });

  it('finishes before the next run starts', () => {
    expect(queries.propertiesOf(reports().sweep).Timeout).toBeLessThan(60);
  });

  it('may query open jobs by age and update report jobs, and nothing else', () => {
    const fn = reports().sweep;
    const indexQueries = queries
      .statementsOf(fn)
      .filter((statement) => resourcesOf(statement).some((resource) => resource.includes('/index/')))
      .flatMap(resourcesOf);
    expect(indexQueries).toEqual([`${tableArn('ReportJobs')}/index/openJobsByAge`]);
    expect(tablesWith(fn, 'dynamodb:UpdateItem')).toEqual([tableArn('ReportJobs')]);
    expect(
      actionsOfFunction(fn).filter(
        (action) => !action.startsWith('dynamodb:') && !action.startsWith('logs:') && action !== 'sqs:SendMessage',
      ),
    ).toEqual([]);
    // A job it fails is a webhook event.
    expect(sendTargetsOf(fn)).toEqual([arnOf(stack.webhooks.queue)]);
  });
});

describe('report routes', () => {
  it('CreateReportJob may write jobs and idempotency records, read users and only send to the job queue', () => {
    const fn = routeFunction('CreateReportJob');
    expect(tablesWith(fn, 'dynamodb:UpdateItem')).toEqual([tableArn('Idempotency'), tableArn('ReportJobs')].sort());
    expect(tablesWith(fn, 'dynamodb:GetItem')).toEqual([tableArn('Idempotency'), tableArn('ReportJobs')].sort());
    expect(dsqlGrantsOf(fn)).toEqual([{ actions: ['dsql:DbConnect'], resources: [usersClusterArn()] }]);
    const sqs = queries.statementsFor(fn, 'sqs:');
    expect(sqs).toHaveLength(1);
    expect(actionsOf(sqs[0]!)).toEqual(['sqs:SendMessage']);
    expect(sqs[0]!.Resource).toEqual(arnOf(reports().queue));
    expect(queries.statementsFor(fn, 's3:')).toEqual([]);
    expect(queries.environmentOf(fn)).toMatchObject({
      REPORT_JOBS_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.ReportJobs) },
      IDEMPOTENCY_TABLE_NAME: { Ref: logicalIdOf(stack.data.tables.Idempotency) },
      ...usersReaderEnvironment(),
      REPORT_QUEUE_URL: { Ref: logicalIdOf(reports().queue) },
      REPORT_RETENTION_DAYS: '30',
      // The contract's 10 per 10 minutes unless the deployment's context says otherwise.
      REPORT_RATE_LIMIT: '10',
    });
  });

  it('CreateReportJob (and the sandbox’s report events, which request jobs as it does) takes its rate limit from the reportRateLimit context value, alone among the functions', () => {
    const { stack: generous } = buildServiceStack({ bundle: false, context: { reportRateLimit: '50' } });
    const template = templateQueries(wholeTemplateOf(generous));
    const requesting = ['CreateReportJob', 'TriggerSandboxEvent'].map((name) => generous.routeFunctions.get(name)!);
    for (const fn of requesting)
      expect(template.environmentOf(fn), fn.node.id).toMatchObject({ REPORT_RATE_LIMIT: '50' });
    const others = [...generous.routeFunctions.values()].filter((fn) => !requesting.includes(fn));
    expect(others.filter((fn) => 'REPORT_RATE_LIMIT' in template.environmentOf(fn))).toEqual([]);
  });

  it('ListReportJobs may only read report jobs and query the jobsByOrganization index', () => {
    const fn = routeFunction('ListReportJobs');
    expect(tablesWith(fn, 'dynamodb:Query')).toEqual([tableArn('ReportJobs')]);
    expect(actionsOfFunction(fn)).not.toContain('dynamodb:UpdateItem');
    expect(actionsOfFunction(fn)).not.toContain('dynamodb:PutItem');
    const indexQueries = queries
      .statementsOf(fn)
      .filter((statement) => resourcesOf(statement).some((resource) => resource.includes('/index/')))
      .flatMap(resourcesOf);
    expect(indexQueries).toEqual([`${tableArn('ReportJobs')}/index/jobsByOrganization`]);
    expect(
      actionsOfFunction(fn).filter((action) => !action.startsWith('dynamodb:') && !action.startsWith('logs:')),
    ).toEqual([]);
  });

  it('GetReportJob may read and write report jobs (a late read fails the job) and nothing else', () => {
    const fn = routeFunction('GetReportJob');
    expect(tablesWith(fn, 'dynamodb:UpdateItem')).toEqual([tableArn('ReportJobs')]);
    expect(tablesWith(fn, 'dynamodb:GetItem')).toEqual([tableArn('ReportJobs')]);
    expect(
      actionsOfFunction(fn).filter(
        (action) => !action.startsWith('dynamodb:') && !action.startsWith('logs:') && action !== 'sqs:SendMessage',
      ),
    ).toEqual([]);
    // A job it fails is a webhook event.
    expect(sendTargetsOf(fn)).toEqual([arnOf(stack.webhooks.queue)]);
  });

  it('GetReportDownloadUrl may get objects under reports/ only, and never put them', () => {
    const fn = routeFunction('GetReportDownloadUrl');
    const s3 = queries.statementsFor(fn, 's3:');
    expect(s3).toHaveLength(1);
    expect(actionsOf(s3[0]!)).toEqual(['s3:GetObject']);
    expect(resourcesOf(s3[0]!)).toEqual([reportObjects()]);
    expect(actionsOfFunction(fn)).not.toContain('s3:PutObject');
    expect(actionsOfFunction(fn).filter((action) => action.startsWith('s3:List'))).toEqual([]);
    expect(tablesWith(fn, 'dynamodb:UpdateItem')).toEqual([tableArn('ReportJobs')]);
    expect(queries.environmentOf(fn)).toMatchObject({ REPORTS_BUCKET_NAME: { Ref: logicalIdOf(reports().bucket) } });
  });

  it('no report function may scan a table', () => {
    const fns = [
      ...['CreateReportJob', 'ListReportJobs', 'GetReportJob', 'GetReportDownloadUrl'].map(routeFunction),
      reports().worker,
      reports().deadLetterHandler,
      reports().sweep,
    ];
    for (const fn of fns) expect(actionsOfFunction(fn), fn.node.id).not.toContain('dynamodb:Scan');
  });
});

describe('alarms', () => {
  const alarms = () => queries.ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const onDeadLetterQueue = (metricName: string) =>
    alarms().filter(
      (alarm) =>
        alarm.Namespace === 'AWS/SQS' &&
        alarm.MetricName === metricName &&
        JSON.stringify(alarm.Dimensions) ===
          JSON.stringify([
            { Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalIdOf(reports().deadLetterQueue), 'QueueName'] } },
          ]),
    );

  it('has no depth alarm on the dead-letter queue: its handler drains it within seconds, so the receive count pages', () => {
    expect(onDeadLetterQueue('ApproximateNumberOfMessagesVisible')).toEqual([]);
  });

  it('alarms when the dead-letter handler receives a message, which it does within seconds of its arrival', () => {
    expect(onDeadLetterQueue('NumberOfMessagesReceived')).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }),
    ]);
  });

  it('alarms on errors of the worker, the dead-letter handler and the sweep; the report routes page as API 5XX answers', () => {
    const alarmed = alarms()
      .filter((alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === 'Errors')
      .map((alarm) => alarmedFunctionOf(alarm));
    for (const fn of [reports().worker, reports().deadLetterHandler, reports().sweep])
      expect(alarmed, fn.node.id).toContain(logicalIdOf(fn));
    for (const fn of ['CreateReportJob', 'GetReportJob', 'GetReportDownloadUrl'].map(routeFunction))
      expect(alarmed, fn.node.id).not.toContain(logicalIdOf(fn));
    expect(alarms().filter((alarm) => alarm.Namespace === 'AWS/ApiGateway' && alarm.MetricName === '5xx')).toHaveLength(
      1,
    );
  });
});

describe('report fonts in the worker bundle', () => {
  it('copies every font file from the installed packages into fonts/ of the bundle', () => {
    const commands = copyReportFonts.afterBundling('/in', '/out');
    expect(commands).toEqual([
      "mkdir -p '/out/fonts'",
      ...allReportFontFiles().map(
        ({ file, packagePath }) => `cp '/in/node_modules/${packagePath}' '/out/fonts/${file}'`,
      ),
    ]);
    expect(commands.join('\n')).toContain('NotoSansArabic_700Bold.ttf');
    expect(copyReportFonts.beforeBundling('/in', '/out')).toEqual([]);
    expect(copyReportFonts.beforeInstall('/in', '/out')).toEqual([]);
  });

  it('copies files that exist in the installed packages', () => {
    for (const { packagePath } of allReportFontFiles()) {
      expect(readFileSync(installedPath(packagePath)).subarray(0, 4)).toEqual(Buffer.from([0, 1, 0, 0]));
    }
  });

  it('takes the paths from modules that import nothing but Node built-ins, so the CDK app never loads pdf-lib', () => {
    // report-fonts.ts and what it imports of the repository's own modules, followed to the end.
    const specifiersOf = (file: string) =>
      [
        ...readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').matchAll(
          /^(?:import|export)\s[^;]*?from\s+'([^']+)'/gm,
        ),
      ].map((match) => match[1]!);
    const seen = new Set<string>();
    const packages: string[] = [];
    const follow = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('#shared/')) follow(specifier.slice(1));
        else packages.push(specifier);
      }
    };
    follow('shared/adapters/pdf/report-fonts.ts');
    expect(packages.length).toBeGreaterThan(0);
    for (const specifier of packages) expect(specifier).toMatch(/^node:/);
  });
});
