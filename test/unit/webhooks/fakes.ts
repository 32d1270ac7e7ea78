import { ConflictError } from '#shared/domain/errors.ts';
import type {
  DeliveryAttemptUpdate,
  DeliveryMessage,
  PendingWebhookEvent,
  PendingWebhookEvents,
  SecretSealer,
  WebhookDeliveryLog,
  WebhookEndpointStore,
  WebhookQueue,
  WebhookResponse,
  WebhookSender,
} from '#shared/domain/webhooks/ports.ts';
import type { VettedTarget } from '#shared/domain/webhooks/ssrf-guard.ts';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '#shared/domain/webhooks/webhook-endpoint.ts';

export class InMemoryEndpoints implements WebhookEndpointStore {
  readonly items = new Map<string, WebhookEndpoint>();
  create(endpoint: WebhookEndpoint, max: number): Promise<void> {
    if ([...this.items.values()].filter((e) => e.orgId === endpoint.orgId).length >= max)
      return Promise.reject(new ConflictError('too many'));
    this.items.set(endpoint.endpointId, { ...endpoint });
    return Promise.resolve();
  }
  list(orgId: string) {
    return Promise.resolve([...this.items.values()].filter((e) => e.orgId === orgId));
  }
  get(orgId: string, endpointId: string) {
    const found = this.items.get(endpointId);
    return Promise.resolve(found?.orgId === orgId ? { ...found } : undefined);
  }
  delete(orgId: string, endpointId: string) {
    const found = this.items.get(endpointId);
    if (found?.orgId !== orgId) return Promise.resolve(false);
    this.items.delete(endpointId);
    return Promise.resolve(true);
  }
  recordFailure(endpoint: WebhookEndpoint, now: Date) {
    const stored = this.items.get(endpoint.endpointId)!;
    stored.failingSince ??= now.toISOString();
    return Promise.resolve({ ...stored });
  }
  recordSuccess(endpoint: WebhookEndpoint) {
    delete this.items.get(endpoint.endpointId)!.failingSince;
    return Promise.resolve();
  }
  disable(endpoint: WebhookEndpoint, now: Date) {
    Object.assign(this.items.get(endpoint.endpointId)!, { disabled: true, disabledAt: now.toISOString() });
    return Promise.resolve();
  }
  setSlowUntil(endpoint: WebhookEndpoint, until: Date | undefined) {
    const stored = this.items.get(endpoint.endpointId)!;
    if (until) stored.slowUntil = until.toISOString();
    else delete stored.slowUntil;
    return Promise.resolve();
  }
}

export class InMemoryDeliveryLog implements WebhookDeliveryLog {
  readonly items = new Map<string, WebhookDelivery>();
  open(delivery: WebhookDelivery) {
    if (!this.items.has(delivery.messageId)) this.items.set(delivery.messageId, { ...delivery });
    return Promise.resolve();
  }
  get(delivery: Pick<WebhookDelivery, 'messageId'>) {
    return Promise.resolve(this.items.get(delivery.messageId));
  }
  recordAttempt(delivery: Pick<WebhookDelivery, 'messageId'>, update: DeliveryAttemptUpdate) {
    const stored = this.items.get(delivery.messageId)!;
    Object.assign(stored, update);
    if (update.nextAttemptAt === undefined) delete stored.nextAttemptAt;
    return Promise.resolve();
  }
  list() {
    return Promise.resolve({ records: [...this.items.values()].reverse(), nextCursor: undefined });
  }
  /** The feed over the same entries, ordered as the table orders them: `{createdAt}#{messageId}`. */
  messagesAfter(_orgId: string, endpointId: string, read: { cursor?: string; settledBy: string; limit: number }) {
    const upTo = `${read.settledBy}#~`;
    if (read.cursor === undefined) return Promise.resolve({ records: [], cursor: upTo });
    const after = read.cursor;
    const records = [...this.items.values()]
      .filter((d) => d.endpointId === endpointId)
      .map((d) => ({ key: `${d.createdAt}#${d.messageId}`, d }))
      .filter(({ key }) => key > after && key <= upTo)
      .sort((a, b) => a.key.localeCompare(b.key))
      .slice(0, read.limit);
    const full = records.length === read.limit;
    return Promise.resolve({ records: records.map(({ d }) => d), cursor: full ? records.at(-1)!.key : upTo });
  }
}

export class RecordingQueue implements WebhookQueue {
  readonly events: WebhookEvent[] = [];
  readonly deliveries: Array<{ message: DeliveryMessage; delaySeconds: number }> = [];
  publishEvent(event: WebhookEvent) {
    this.events.push(event);
    return Promise.resolve();
  }
  scheduleDelivery(message: DeliveryMessage, delaySeconds: number) {
    this.deliveries.push({ message, delaySeconds });
    return Promise.resolve();
  }
}

/** A queue that refuses every event until `up` is set, like SQS during an outage. */
export class OutageQueue extends RecordingQueue {
  up = false;
  override publishEvent(event: WebhookEvent) {
    return this.up ? super.publishEvent(event) : Promise.reject(new Error('SQS unreachable'));
  }
}

export class InMemoryPendingEvents implements PendingWebhookEvents {
  readonly kept: PendingWebhookEvent[] = [];
  failing = false;
  keep(event: WebhookEvent, now: Date) {
    if (this.failing) return Promise.reject(new Error('DynamoDB unreachable'));
    this.kept.push({ event, keptAt: now.toISOString() });
    return Promise.resolve();
  }
  oldest(limit: number) {
    return Promise.resolve([...this.kept].sort((a, b) => a.keptAt.localeCompare(b.keptAt)).slice(0, limit));
  }
  ofOrganization(orgId: string) {
    return Promise.resolve(this.kept.filter((k) => k.event.orgId === orgId));
  }
  remove(pending: PendingWebhookEvent) {
    const index = this.kept.findIndex((k) => k.event.eventId === pending.event.eventId && k.keptAt === pending.keptAt);
    if (index >= 0) this.kept.splice(index, 1);
    return Promise.resolve();
  }
}

/** Reversible and context-bound, like the real sealers, without a key. */
export const fakeSealer: SecretSealer = {
  seal: (secret, context) =>
    Promise.resolve(`sealed:${context.orgId}:${context.endpointId}:${Buffer.from(secret).toString('hex')}`),
  open: (sealed, context) => {
    const prefix = `sealed:${context.orgId}:${context.endpointId}:`;
    if (!sealed.startsWith(prefix)) return Promise.reject(new Error('wrong context'));
    return Promise.resolve(Buffer.from(sealed.slice(prefix.length), 'hex').toString());
  },
};

export class ScriptedSender implements WebhookSender {
  readonly requests: Array<{ target: VettedTarget; headers: Record<string, string>; body: string }> = [];
  constructor(private readonly answers: WebhookResponse[] = [{ status: 204 }]) {}
  send(target: VettedTarget, request: { headers: Record<string, string>; body: string }) {
    this.requests.push({ target, ...request });
    return Promise.resolve(this.answers[Math.min(this.requests.length - 1, this.answers.length - 1)]!);
  }
}

/** A resolver answering from a fixed table; an unknown name does not resolve. */
export const fixedResolver = (table: Record<string, string[]>) => ({
  resolve: (hostname: string) =>
    table[hostname] ? Promise.resolve(table[hostname]) : Promise.reject(new Error(`ENOTFOUND ${hostname}`)),
});
