import type { TriggeredSandboxEvent } from '#shared/domain/sandbox/sandbox-events.ts';
import type { SandboxEventBody } from '#shared/schemas/sandbox-event-schemas.ts';

/** 202 of POST /v1/sandbox/events. */
export function sandboxEventBody(triggered: TriggeredSandboxEvent): SandboxEventBody {
  return { type: triggered.type, objectId: triggered.objectId };
}
