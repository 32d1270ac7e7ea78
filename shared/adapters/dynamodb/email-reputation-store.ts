import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import {
  emptyEmailReputation,
  type EmailPause,
  type EmailReputationStore,
  type EmailReputationState,
  type RecentEmail,
} from '#shared/domain/onboarding/email-reputation.ts';

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

export class DynamoDbEmailReputationStore implements EmailReputationStore {
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
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const { state, version } = await this.readVersioned(orgId);
      const next = change(state);
      if (!next) return undefined;
      try {
        await this.documents.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...emailReputationKey(orgId), ...toItem(next), version: version + 1 },
            ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
            ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
          }),
        );
        return next;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new DependencyUnavailableError('e-mail reputation (too much contention)');
  }

  private async readVersioned(orgId: string): Promise<{ state: EmailReputationState; version: number }> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: emailReputationKey(orgId), ConsistentRead: true }),
    );
    if (!Item) return { state: emptyEmailReputation(), version: 0 };
    const stored = Item as StoredReputation;
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
}

function toItem(state: EmailReputationState): StoredReputation {
  return {
    recent: state.recent.map((email) => [email.messageId, email.bounced, email.complained]),
    early: state.early.map((outcome) => [outcome.messageId, outcome.kind]),
    ...(state.paused ? { paused: state.paused } : {}),
  };
}
