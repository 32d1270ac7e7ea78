import * as v from 'valibot';
import { SANDBOX_EVENT_TYPES } from '#shared/domain/sandbox/sandbox-events.ts';

/** POST /v1/sandbox/events body: a type outside the list is a 400 `isIn` naming every type. Unknown members are ignored. */
export const sandboxEventRequestSchema = v.object({
  type: v.picklist(SANDBOX_EVENT_TYPES),
});

/** 202 of POST /v1/sandbox/events. */
export const sandboxEventSchema = v.object({
  type: v.pipe(v.picklist(SANDBOX_EVENT_TYPES), v.description('The event triggered.')),
  objectId: v.pipe(
    v.string(),
    v.uuid(),
    v.description(
      'What the message’s `data` describes, readable through the API: the report job’s id (report events), the onboarding token’s id (token events), or the first webhook endpoint’s id (`webhook.test`, sent to each of the sandbox’s endpoints).',
    ),
  ),
});

export type SandboxEventBody = v.InferOutput<typeof sandboxEventSchema>;
