import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStack } from '#lib/service-stack.ts';
import { SANDBOX_WIPE_MAX_RECEIVES, SANDBOX_WIPE_TIMEOUT_SECONDS } from '#shared/queue/sandbox-wipe-messages.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, resourcesOf, templateQueries, type Statement, wholeTemplateOf } from './template-queries.ts';

/** DELETE /v1/sandbox: the route's function, the wipe queue and its consumer, and what each may do. */

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } }));
  queries = templateQueries(wholeTemplateOf(stack));
});

const arnOf = (construct: Parameters<typeof logicalIdOf>[0]) => `<${logicalIdOf(construct)}.Arn>`;
const routeFunction = () => stack.routeFunctions.get('WipeSandbox')!;
const consumer = () => stack.sandboxWipes.consumer;

/** `action on resource if condition`, one line per pair, sorted; X-Ray and the function's own log group left out. */
function grants(fn: IFunction): string[] {
  const lines = queries
    .statementsOf(fn)
    .filter((statement: Statement) => !actionsOf(statement).every((action) => /^(xray|logs):/.test(action)))
    .flatMap((statement) =>
      actionsOf(statement).flatMap((action) =>
        resourcesOf(statement).map(
          (resource) =>
            `${action} on ${resource}${statement.Condition ? ` if ${JSON.stringify(statement.Condition)}` : ''}`,
        ),
      ),
    );
  return [...new Set(lines)].sort();
}

const leadingKeys = (...patterns: string[]) =>
  JSON.stringify({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } });
const SANDBOX_PARTITIONS = leadingKeys('ORG#*~sandbox', 'ORG#*~sandbox#*');
const WIPE_RECORDS = leadingKeys('SANDBOX_WIPE#*');

describe('the WipeSandbox route function', () => {
  it('may read and write the wipe records alone (their own partitions), send to the wipe queue, append to the audit trail and spend its budget; nothing else', () => {
    const tables = stack.data.tables;
    expect(grants(routeFunction())).toEqual(
      [
        `dynamodb:PutItem on ${arnOf(tables.AuditEvents)}`,
        `dynamodb:GetItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `dynamodb:PutItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `dynamodb:UpdateItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `dynamodb:UpdateItem on ${arnOf(tables.RequestBudgets)}`,
        `sqs:SendMessage on ${arnOf(stack.sandboxWipes.queue)}`,
      ].sort(),
    );
    expect(queries.environmentOf(routeFunction())).toMatchObject({
      REPORT_JOBS_TABLE_NAME: { Ref: logicalIdOf(tables.ReportJobs) },
      SANDBOX_WIPE_QUEUE_URL: { Ref: logicalIdOf(stack.sandboxWipes.queue) },
    });
  });
});

describe('the wipe queue and its consumer', () => {
  it('dead-letters a wipe after its receives, and alarms on the dead letters', () => {
    const queue = queries.propertiesOf(stack.sandboxWipes.queue);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stack.sandboxWipes.deadLetterQueue), 'Arn'] },
      maxReceiveCount: SANDBOX_WIPE_MAX_RECEIVES,
    });
    expect(queue.VisibilityTimeout).toBe(6 * SANDBOX_WIPE_TIMEOUT_SECONDS);
    const alarmed = queries
      .ofType('AWS::CloudWatch::Alarm')
      .filter(([, alarm]) =>
        JSON.stringify(alarm.Properties.Dimensions ?? []).includes(logicalIdOf(stack.sandboxWipes.deadLetterQueue)),
      );
    expect(alarmed).toHaveLength(1);
  });

  it('is consumed one wipe at a time per invocation, by the consumer’s live alias, failures reported per record', () => {
    const mappings = queries
      .ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, mapping]) =>
        JSON.stringify(mapping.Properties.EventSourceArn).includes(logicalIdOf(stack.sandboxWipes.queue)),
      );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(queries.propertiesOf(consumer()).Timeout).toBe(SANDBOX_WIPE_TIMEOUT_SECONDS);
  });

  it('may touch only the sandboxes’ partitions, index partition and report folders, the wipe records and its own queue, and the users database as users_eraser', () => {
    const tables = stack.data.tables;
    const bucket = arnOf(stack.reports.bucket);
    const cluster = `<${stack.getLogicalId(stack.usersDatabase.cluster)}.ResourceArn>`;
    expect(grants(consumer())).toEqual(
      [
        `dynamodb:GetItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `dynamodb:PutItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `dynamodb:UpdateItem on ${arnOf(tables.ReportJobs)} if ${WIPE_RECORDS}`,
        `sqs:SendMessage on ${arnOf(stack.sandboxWipes.queue)}`,
        `dynamodb:Query on ${arnOf(tables.OnboardingTokens)} if ${SANDBOX_PARTITIONS}`,
        `dynamodb:BatchWriteItem on ${arnOf(tables.OnboardingTokens)} if ${SANDBOX_PARTITIONS}`,
        `dynamodb:Query on ${arnOf(tables.Webhooks)} if ${SANDBOX_PARTITIONS}`,
        `dynamodb:BatchWriteItem on ${arnOf(tables.Webhooks)} if ${SANDBOX_PARTITIONS}`,
        `dynamodb:Query on ${arnOf(tables.ReportJobs)} if ${SANDBOX_PARTITIONS}`,
        `dynamodb:Query on ${arnOf(tables.ReportJobs)}/index/jobsByOrganization if ${leadingKeys('ORG#*~sandbox')}`,
        // A job's key carries no mode: the domain's guard holds here (docs/sandbox.md).
        `dynamodb:BatchWriteItem on ${arnOf(tables.ReportJobs)}`,
        `s3:ListBucket on ${bucket} if ${JSON.stringify({ StringLike: { 's3:prefix': ['reports/*~sandbox/'] } })}`,
        `s3:DeleteObject on ${bucket}/reports/*~sandbox/*`,
        `dsql:DbConnect on ${cluster}`,
        // The event source mapping reads its queue.
        ...grants(consumer()).filter((grant) => grant.startsWith('sqs:') && !grant.startsWith('sqs:SendMessage')),
      ].sort(),
    );
    expect(
      grants(consumer())
        .filter((grant) => grant.startsWith('sqs:') && !grant.startsWith('sqs:SendMessage'))
        .every((grant) => grant.endsWith(`on ${arnOf(stack.sandboxWipes.queue)}`)),
    ).toBe(true);
  });
});
