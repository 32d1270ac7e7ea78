import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { recordAuditEvent, type AuditRecorder } from '#shared/domain/audit/record-audit-event.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { DynamoDbAuditTrail } from '#shared/adapters/dynamodb/audit-trail-store.ts';

/** The audit trail of a function's requests; a lost event is logged (ids only) and counted (alarmed). */
export function auditRecorderFor(
  documents: DynamoDBDocumentClient,
  config: { AUDIT_EVENTS_TABLE_NAME: string; AUDIT_RETENTION_DAYS: number },
): AuditRecorder {
  return recordAuditEvent({
    trail: new DynamoDbAuditTrail(documents, config.AUDIT_EVENTS_TABLE_NAME, config.AUDIT_RETENTION_DAYS),
    clock: systemClock,
    newId: randomUUID,
    onLost: (event, orgId, error) => {
      logger.error('audit event could not be recorded', {
        eventId: event.eventId,
        action: event.action,
        targetId: event.target.id,
        orgId,
        error: error as Error,
      });
      metrics.addMetric(BusinessMetric.AuditEventsLost, MetricUnit.Count, 1);
    },
  });
}

/** The audit trail a route records its changes in (`request.audit`). */
export function auditTrailFor(config: {
  AUDIT_EVENTS_TABLE_NAME: string;
  AUDIT_RETENTION_DAYS: number;
}): AuditRecorder {
  return auditRecorderFor(containerDynamoDbClients().documents, config);
}

/** The trail as the listing reads it (no retention: it writes nothing). */
export function auditTrailReaderFor(config: { AUDIT_EVENTS_TABLE_NAME: string }): DynamoDbAuditTrail {
  return new DynamoDbAuditTrail(containerDynamoDbClients().documents, config.AUDIT_EVENTS_TABLE_NAME);
}
