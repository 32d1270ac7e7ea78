import type { SandboxWipe } from '#shared/domain/sandbox/sandbox-wipe.ts';
import type { SandboxWipeBody } from '#shared/schemas/sandbox-wipe-responses.ts';

/** 202 of DELETE /v1/sandbox: the running wipe, never its tenant key. */
export function sandboxWipeBody(wipe: SandboxWipe): SandboxWipeBody {
  return { wipeId: wipe.wipeId, status: 'RUNNING', requestedAt: wipe.requestedAt };
}
