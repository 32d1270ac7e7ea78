import { randomUUID } from 'node:crypto';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BoundedMap } from '#shared/support/bounded-map.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import {
  emptyEmailReputation,
  type EmailPause,
  type EmailReputationStore,
  type EmailReputationState,
  type RecentEmail,
} from '#shared/domain/onboarding/email-reputation.ts';
import { writeOnce } from './write-once.ts';

/**
 * An organization's e-mail reputation: one item in the OnboardingTokens table, in a partition of
 * its own (`EMAIL_REPUTATION#{org}`, so the organization's token partition holds only what its
 * requests write). The recent e-mails are message ids and two flags (`[id, bounced, complained]`),
 * never an address. Every change is a Put conditioned on the version it read.
 */
export const emailReputationKey = (orgId: string) => ({ pk: `EMAIL_REPUTATION#${orgId}`, sk: 'EMAIL_REPUTATION' });

/** Changes on fresh state before an event is given up on (its invocation fails, and is retried). */
const MAX_ATTEMPTS = 20;

interface StoredReputation {
  version?: number;
  recent?: Array<[string, boolean, boolean]>;
  early?: Array<[string, 'bounce' | 'complaint']>;
  paused?: EmailPause;
}

/** Organizations whose last known state a store keeps; the one read or written longest ago is forgotten first. */
const MAX_REMEMBERED_ORGANIZATIONS = 200;

interface VersionedReputation {
  state: EmailReputationState;
  version: number;
}

export class DynamoDbEmailReputationStore implements EmailReputationStore {
  /**
   * The state this store last read or wrote, per organization. The counter's next change is
   * written on it straight away, conditioned on its version: while one container counts an
   * organization's events (the usual case), an event costs one write instead of a read and a
   * write. A stale state fails the condition and the change is made again on a fresh read.
   */
  private readonly lastKnown = new BoundedMap<string, VersionedReputation>(MAX_REMEMBERED_ORGANIZATIONS);

  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(orgId: string): Promise<EmailReputationState> {
    return (await this.readVersioned(orgId)).state;
  }

  /** The pause alone: what the sending functions read before each e-mail. */
  async pausedFor(orgId: string, abortSignal?: AbortSignal): Promise<EmailPause['reason'] | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({
        TableName: this.tableName,
        Key: emailReputationKey(orgId),
        ProjectionExpression: 'paused',
      }),
      { abortSignal },
    );
    return (Item as StoredReputation | undefined)?.paused?.reason;
  }

  async update(
    orgId: string,
    change: (state: EmailReputationState) => EmailReputationState | undefined,
  ): Promise<EmailReputationState | undefined> {
    const known = this.lastKnown.get(orgId);
    if (known) {
      // A change that writes nothing on a remembered state is decided again on a fresh read.
      const next = change(known.state);
      if (next && (await this.replace(orgId, next, known.version))) return next;
    }
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { state, version } = await this.readVersioned(orgId);
      const next = change(state);
      if (!next) return undefined;
      if (await this.replace(orgId, next, version)) return next;
    }
    throw new DependencyUnavailableError('e-mail reputation (too much contention)');
  }

  /**
   * Writes `next` if the stored version is still `version`; false when another change got there
   * first. A retry that meets this write's own `writeId` is this write, landed (write-once.ts).
   */
  private async replace(orgId: string, next: EmailReputationState, version: number): Promise<boolean> {
    const writeId = randomUUID();
    const written = await writeOnce(
      this.documents,
      {
        Put: {
          TableName: this.tableName,
          Item: { ...emailReputationKey(orgId), ...toItem(next), version: version + 1, writeId },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
        },
      },
      { attribute: 'writeId', value: writeId },
    );
    if (written.kind === 'condition-failed') {
      this.lastKnown.delete(orgId);
      return false;
    }
    this.lastKnown.set(orgId, { state: next, version: version + 1 });
    return true;
  }

  private async readVersioned(orgId: string): Promise<VersionedReputation> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: emailReputationKey(orgId), ConsistentRead: true }),
    );
    const reputation = Item ? fromItem(Item as StoredReputation) : { state: emptyEmailReputation(), version: 0 };
    this.lastKnown.set(orgId, reputation);
    return reputation;
  }
}

function fromItem(stored: StoredReputation): VersionedReputation {
  return {
    version: stored.version ?? 0,
    state: {
      recent: (stored.recent ?? []).map(([messageId, bounced, complained]): RecentEmail => ({
        messageId,
        bounced,
        complained,
      })),
      early: (stored.early ?? []).map(([messageId, kind]) => ({ messageId, kind })),
      paused: stored.paused,
    },
  };
}

function toItem(state: EmailReputationState): StoredReputation {
  return {
    recent: state.recent.map((email) => [email.messageId, email.bounced, email.complained]),
    early: state.early.map((outcome) => [outcome.messageId, outcome.kind]),
    ...(state.paused ? { paused: state.paused } : {}),
  };
}
