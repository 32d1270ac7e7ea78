import * as v from 'valibot';
import { SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { REPORT_ERROR_CODES } from '#shared/domain/reports/report-job.ts';
import { userStatusRecordSchema } from './user-status-responses.ts';

const bounded = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(max));

/** What a scenario user's report job does (shared/domain/sandbox/scenarios.ts). */
const scenarioReportSchema = v.variant('status', [
  v.object({
    status: v.literal('COMPLETE'),
    completesAfterSeconds: v.pipe(
      bounded(900),
      v.description('The job completes no sooner than this after it is requested.'),
    ),
    pages: v.pipe(bounded(100), v.description('Pages of the report.')),
  }),
  v.object({
    status: v.literal('FAILED'),
    errorCode: v.pipe(v.picklist(REPORT_ERROR_CODES), v.description('The job always ends FAILED with this code.')),
  }),
]);

/** One scenario user of GET /v1/sandbox/scenarios. */
export const sandboxScenarioSchema = v.object({
  id: v.pipe(v.picklist(SCENARIO_IDS), v.description('The scenario user’s id: request its report with it.')),
  description: v.pipe(v.string(), v.maxLength(500)),
  report: scenarioReportSchema,
  // The record the sandbox holds for it, as user-status returns it.
  user: userStatusRecordSchema,
});

/** 200 of GET /v1/sandbox/scenarios. */
export const sandboxScenarioListSchema = v.object({
  results: v.pipe(
    v.array(sandboxScenarioSchema),
    v.maxLength(SCENARIO_IDS.length),
    v.description('Every scenario user, in the order user-status lists them (before any imported user).'),
  ),
});

/** 201 of POST /v1/sandbox/users. */
export const sandboxUsersImportedSchema = v.object({
  imported: v.pipe(
    bounded(1_000),
    v.description('Records stored (new or replacing the sandbox user with the same id).'),
  ),
});

export type SandboxScenarioListBody = v.InferOutput<typeof sandboxScenarioListSchema>;
export type SandboxUsersImportedBody = v.InferOutput<typeof sandboxUsersImportedSchema>;
