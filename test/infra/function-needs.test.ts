import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceFunction } from '#lib/service-function.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { REPORT_FONTS_DIR_ENV } from '#shared/config/process-environment.ts';
import {
  functionNeeds,
  type BackgroundFunctionName,
  type DeploymentFunctionName,
  type FunctionName,
} from '#shared/config/function-needs.ts';
import { functionEnvironment } from '#shared/wiring/function-config.ts';
import { buildServiceStack } from './service-stack-fixture.ts';
import { templateQueries, wholeTemplateOf } from './template-queries.ts';

/** What ServiceFunction and the stack give every function, whatever it needs. */
const EVERY_FUNCTION_VARIABLES = [
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_TRACER_CAPTURE_ERROR',
  'NODE_OPTIONS',
  'STAGE',
  'POWERTOOLS_METRICS_NAMESPACE',
];

let stack: ServiceStack;
let environmentOf: (fn: ServiceFunction) => Record<string, unknown>;

// With the Cognito trigger: every declared function is deployed.
beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false, context: { identity: 'cognito' } }));
  ({ environmentOf } = templateQueries(wholeTemplateOf(stack)));
});

/** The functions outside the API that each declaration covers. */
const functionsOutsideTheApi = (): Record<BackgroundFunctionName | DeploymentFunctionName, ServiceFunction[]> => ({
  ProcessReportJobs: [stack.reports.worker],
  FailDeadLetteredReportJobs: [stack.reports.deadLetterHandler],
  SweepTimedOutReportJobs: [stack.reports.sweep],
  DeliverWebhooks: [stack.webhooks.delivery, stack.webhooks.slowDelivery],
  RepublishWebhookEvents: [stack.webhooks.republish],
  CountEmailEvents: [stack.mail.eventCounter],
  ProcessSandboxWipes: [stack.sandboxWipes.consumer],
  PreTokenGeneration: [stack.identity!.preTokenGeneration],
  MigrateUsersDatabase: [stack.usersDatabase.migrationFunction],
  PublishReportSigningCertificates: [stack.reportSigning.publisherFunction],
  CheckNewVersion: [...stack.deployments.hooks.values(), ...stack.sandbox.deployments.hooks.values()],
});

/** The variables a function's entry file cannot start without: those its needs' schema has no default for. */
const requiredVariables = (name: FunctionName): string[] =>
  Object.entries(functionEnvironment(name) as v.ObjectEntries)
    .filter(([, schema]) => !v.safeParse(schema, undefined).success)
    .map(([variable]) => variable);

describe('each function’s environment against its declared needs (shared/config/function-needs.ts)', () => {
  it('gives every declared function each variable its entry file requires', () => {
    const declared: Array<[FunctionName, ServiceFunction[]]> = [
      ...apiRoutes.map((route): [FunctionName, ServiceFunction[]] => [
        route.name as FunctionName,
        [stack.routeFunctions.get(route.name)!],
      ]),
      ...(Object.entries(functionsOutsideTheApi()) as Array<[FunctionName, ServiceFunction[]]>),
    ];
    expect(declared.map(([name]) => name).sort()).toEqual(Object.keys(functionNeeds).sort());
    for (const [name, fns] of declared) {
      expect(fns.length, name).toBeGreaterThan(0);
      for (const fn of fns)
        expect(Object.keys(environmentOf(fn)), fn.node.path).toEqual(expect.arrayContaining(requiredVariables(name)));
    }
  });

  it('gives a function outside the API its needs’ variables and those of every function, nothing else', () => {
    for (const [name, fns] of Object.entries(functionsOutsideTheApi()) as Array<[FunctionName, ServiceFunction[]]>) {
      const declaredVariables = [
        ...Object.keys(functionEnvironment(name)),
        ...EVERY_FUNCTION_VARIABLES,
        // Where the worker's bundle holds the fonts (lib/report-pipeline-construct.ts): its layout, nothing it reaches.
        ...(name === 'ProcessReportJobs' ? [REPORT_FONTS_DIR_ENV] : []),
      ];
      for (const fn of fns)
        expect(declaredVariables, fn.node.path).toEqual(expect.arrayContaining(Object.keys(environmentOf(fn))));
    }
  });
});
