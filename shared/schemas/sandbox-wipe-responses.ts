import * as v from 'valibot';

/** 202 of DELETE /v1/sandbox. */
export const sandboxWipeSchema = v.object({
  wipeId: v.pipe(
    v.string(),
    v.uuid(),
    v.description('The wipe under way: a second request while it runs answers the same id.'),
  ),
  status: v.pipe(
    v.literal('RUNNING'),
    v.description('Always RUNNING here: within 60 s every object of the sandbox is gone (its scenario users stay).'),
  ),
  requestedAt: v.pipe(v.string(), v.isoTimestamp(), v.description('When the running wipe was requested.')),
});

export type SandboxWipeBody = v.InferOutput<typeof sandboxWipeSchema>;
