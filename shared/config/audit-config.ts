import { positiveIntegerString, requiredString } from '#shared/config/load-config.ts';

/** What a function that records audit events reads from its environment. */
export const auditEnvironment = {
  AUDIT_EVENTS_TABLE_NAME: requiredString('AUDIT_EVENTS_TABLE_NAME'),
  AUDIT_RETENTION_DAYS: positiveIntegerString('AUDIT_RETENTION_DAYS', 400),
};
