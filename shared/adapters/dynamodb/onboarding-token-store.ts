import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ConflictError, DependencyUnavailableError, TokenNotIssuedError } from '#shared/domain/errors.ts';
import {
  tokenStatus,
  type OnboardingTokenRecord,
  type OnboardingTokenStatus,
} from '#shared/domain/onboarding/onboarding-token.ts';
import type { EmailQuotaSpend, OnboardingTokenPage, OnboardingTokenStore } from '#shared/domain/onboarding/ports.ts';
import { QuotaChangedError } from '#shared/domain/limits/rate-limit.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { cancellationReasons, withTransactionConflictRetry } from './transactions.ts';
import { epochSeconds, organizationPartition } from './keys.ts';

const RETAIN_AFTER_EXPIRY_SECONDS = 30 * 24 * 60 * 60;
const TOKEN_PREFIX = 'TOKEN#';

const tokenKey = (record: Pick<OnboardingTokenRecord, 'createdAt' | 'tokenId'>): string =>
  `${TOKEN_PREFIX}${record.createdAt}#${record.tokenId}`;
const emailGuardKey = (email: string): string => `EMAIL#${email}`;
const tokenIdKey = (tokenId: string): string => `TOKENID#${tokenId}`;
const tokenHashKey = (tokenHash: string): string => `TOKENHASH#${tokenHash}`;

const NOT_PROVISIONAL = 'attribute_not_exists(provisionalUntil)';

/** Pages a listing reads at most per request; a sparse match hands back a cursor instead of reading on. */
const MAX_LIST_ROUNDS = 5;
/** Items a filtered listing's page reads (DynamoDB counts them before the filter): 5 pages, 500 items a request. */
const FILTERED_PAGE_ITEMS = 100;

/** Issued: neither used nor revoked, and not expired at `:nowIso` (ISO instants compare as strings). */
const IS_ISSUED = 'attribute_not_exists(usedAt) AND attribute_not_exists(revokedAt) AND expiresAt > :nowIso';

/**
 * Tokens live in the organization's partition, sorted by creation time, so the dashboard is one
 * Query. Next to them:
 * - one e-mail guard item per (organization, e-mail) holding the expiry of the live token; the
 *   token and its guard are written in one transaction whose condition is "no guard, or an
 *   expired one", which is what makes a duplicate a 409 even under concurrency. Redeeming or
 *   revoking the token deletes its guard in the same transaction, freeing the e-mail;
 * - two pointer items, `TOKENID#<id>` and `TOKENHASH#<sha256>`, naming the token's sort key, so
 *   revoke/resend (by id) and redeem (by the hash of what the user typed) are consistent reads in
 *   the caller's partition: another organization's token is never found.
 */
export class DynamoDbOnboardingTokenStore implements OnboardingTokenStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async issue(
    record: OnboardingTokenRecord,
    now: Date,
    provisionalUntil: Date,
    emailQuota?: EmailQuotaSpend,
  ): Promise<void> {
    const items = [
      this.claimEmailGuard(record, now, undefined, provisionalUntil),
      ...this.putToken(record, provisionalUntil),
    ];
    const command = new TransactWriteCommand({ TransactItems: [...items, ...quotaWrites(emailQuota)] });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons[0] === 'ConditionalCheckFailed') throw emailTaken();
      throwIfQuotaChanged(reasons, items.length, error);
      throw error;
    }
  }

  async confirm(record: OnboardingTokenRecord, provisionalUntil: Date): Promise<void> {
    const partition = organizationPartition(record.orgId);
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: partition, sk: tokenKey(record) },
            UpdateExpression: 'REMOVE provisionalUntil',
            ConditionExpression: 'provisionalUntil = :provisionalUntil',
            ExpressionAttributeValues: { ':provisionalUntil': provisionalUntil.toISOString() },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: partition, sk: emailGuardKey(record.email) },
            UpdateExpression: 'SET expiresAtEpoch = :expiresAtEpoch',
            ConditionExpression: 'tokenSk = :tokenSk',
            ExpressionAttributeValues: {
              ':expiresAtEpoch': epochSeconds(record.expiresAt),
              ':tokenSk': tokenKey(record),
            },
          },
        },
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      if (cancellationReasons(error).includes('ConditionalCheckFailed')) {
        throw new DependencyUnavailableError('database (token confirmation came too late)', { cause: error });
      }
      throw error;
    }
  }

  async withdraw(record: OnboardingTokenRecord): Promise<void> {
    const command = new TransactWriteCommand({
      TransactItems: [...this.deleteToken(record), this.releaseEmailGuard(record)],
    });
    await withTransactionConflictRetry(() => this.documents.send(command));
  }

  async findById(orgId: string, tokenId: string): Promise<OnboardingTokenRecord | undefined> {
    return this.findThrough(orgId, tokenIdKey(tokenId));
  }

  async findByHash(orgId: string, tokenHash: string): Promise<OnboardingTokenRecord | undefined> {
    return this.findThrough(orgId, tokenHashKey(tokenHash));
  }

  async markUsed(record: OnboardingTokenRecord, now: Date): Promise<OnboardingTokenRecord | OnboardingTokenStatus> {
    const usedAt = now.toISOString();
    return this.leaveIssued(record, now, 'SET usedAt = :usedAt', { ':usedAt': usedAt }, { ...record, usedAt });
  }

  async revoke(
    record: OnboardingTokenRecord,
    revokedBy: string | undefined,
    now: Date,
  ): Promise<OnboardingTokenRecord | OnboardingTokenStatus> {
    const revokedAt = now.toISOString();
    const [update, values] =
      revokedBy === undefined
        ? ['SET revokedAt = :revokedAt', { ':revokedAt': revokedAt }]
        : ['SET revokedAt = :revokedAt, revokedBy = :revokedBy', { ':revokedAt': revokedAt, ':revokedBy': revokedBy }];
    return this.leaveIssued(record, now, update, values, {
      ...record,
      revokedAt,
      ...(revokedBy === undefined ? {} : { revokedBy }),
    });
  }

  async expire(record: OnboardingTokenRecord, now: Date): Promise<OnboardingTokenRecord | OnboardingTokenStatus> {
    const expiresAt = now.toISOString();
    return this.leaveIssued(
      record,
      now,
      'SET expiresAt = :expiresAt',
      { ':expiresAt': expiresAt },
      {
        ...record,
        expiresAt,
      },
    );
  }

  async replace(
    previous: OnboardingTokenRecord,
    next: OnboardingTokenRecord,
    revokedBy: string | undefined,
    now: Date,
    emailQuota?: EmailQuotaSpend,
  ): Promise<void> {
    const wasIssued = tokenStatus(previous, now) === 'Issued';
    const revokePrevious = {
      Update: {
        TableName: this.tableName,
        Key: { pk: organizationPartition(previous.orgId), sk: tokenKey(previous) },
        UpdateExpression:
          revokedBy === undefined ? 'SET revokedAt = :revokedAt' : 'SET revokedAt = :revokedAt, revokedBy = :revokedBy',
        ConditionExpression: IS_ISSUED,
        ExpressionAttributeValues: {
          ':revokedAt': now.toISOString(),
          ':nowIso': now.toISOString(),
          ...(revokedBy === undefined ? {} : { ':revokedBy': revokedBy }),
        },
      },
    };
    // An Expired token is left as it is, but must still be neither used nor revoked.
    const checkPreviousExpired = {
      ConditionCheck: {
        TableName: this.tableName,
        Key: { pk: organizationPartition(previous.orgId), sk: tokenKey(previous) },
        ConditionExpression: 'attribute_not_exists(usedAt) AND attribute_not_exists(revokedAt)',
      },
    };
    const items = [
      wasIssued ? revokePrevious : checkPreviousExpired,
      this.claimEmailGuard(next, now, wasIssued ? tokenKey(previous) : undefined),
      ...this.putToken(next),
    ];
    const command = new TransactWriteCommand({ TransactItems: [...items, ...quotaWrites(emailQuota)] });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons[0] === 'ConditionalCheckFailed') {
        const current = await this.findById(previous.orgId, previous.tokenId);
        throw new TokenNotIssuedError(current ? tokenStatus(current, now) : 'Revoked');
      }
      if (reasons[1] === 'ConditionalCheckFailed') throw emailTaken();
      throwIfQuotaChanged(reasons, items.length, error);
      throw error;
    }
  }

  async undoReplace(previous: OnboardingTokenRecord, next: OnboardingTokenRecord): Promise<void> {
    const wasIssued = previous.revokedAt === undefined && previous.usedAt === undefined;
    const partition = organizationPartition(previous.orgId);
    const restoreGuard = {
      Put: {
        TableName: this.tableName,
        Item: this.emailGuardItem(previous),
        // Only while the guard is still the one `replace` wrote.
        ConditionExpression: 'tokenSk = :nextSk',
        ExpressionAttributeValues: { ':nextSk': tokenKey(next) },
      },
    };
    const command = new TransactWriteCommand({
      TransactItems: [
        ...this.deleteToken(next),
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: partition, sk: tokenKey(previous) },
            UpdateExpression: 'REMOVE revokedAt, revokedBy',
          },
        },
        // The previous token was Issued: the guard is its again. Expired: the guard goes.
        wasIssued && Date.parse(previous.expiresAt) > Date.now() ? restoreGuard : this.releaseEmailGuard(next),
      ],
    });
    await withTransactionConflictRetry(() => this.documents.send(command));
  }

  async listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined; status?: OnboardingTokenStatus; now: Date },
  ): Promise<OnboardingTokenPage> {
    const startAfter = page.cursor === undefined ? undefined : decodeCursor(page.cursor, TOKEN_PREFIX);
    const status = page.status === undefined ? undefined : statusFilter(page.status, page.now);
    // Provisional tokens are in flight (or were given up): never listed.
    const filter = {
      expression: status ? `${NOT_PROVISIONAL} AND (${status.expression})` : NOT_PROVISIONAL,
      values: status?.values ?? {},
    };
    const items: Array<OnboardingTokenRecord & { sk: string }> = [];
    let exclusiveStartKey = startAfter === undefined ? undefined : { pk: organizationPartition(orgId), sk: startAfter };
    // One extra item tells whether another page exists, so the last page never carries a cursor.
    // A status filter may leave a page short: read on, but at most MAX_LIST_ROUNDS pages of at
    // most FILTERED_PAGE_ITEMS, then hand back a cursor to continue from (possibly with no results).
    for (let round = 1; ; round += 1) {
      const result = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: filter.expression,
          ExpressionAttributeValues: {
            ':pk': organizationPartition(orgId),
            ':prefix': TOKEN_PREFIX,
            ...filter.values,
          },
          ScanIndexForward: false,
          Limit: status === undefined ? page.limit + 1 : Math.max(page.limit + 1, FILTERED_PAGE_ITEMS),
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      items.push(...((result.Items ?? []) as Array<OnboardingTokenRecord & { sk: string }>));
      exclusiveStartKey = result.LastEvaluatedKey as typeof exclusiveStartKey;
      if (items.length > page.limit || exclusiveStartKey === undefined || round >= MAX_LIST_ROUNDS) break;
    }
    const records = items.slice(0, page.limit);
    const last = records.at(-1);
    let nextCursor: string | undefined;
    if (items.length > page.limit && last) nextCursor = encodeCursor(last.sk);
    else if (exclusiveStartKey !== undefined) nextCursor = encodeCursor(exclusiveStartKey.sk);
    return { records: records.map(toRecord), nextCursor };
  }

  async eraseIssuedTo(orgId: string, email: string): Promise<number> {
    const partition = organizationPartition(orgId);
    let erased = 0;
    let exclusiveStartKey: Record<string, unknown> | undefined;
    // Every token of the organization, read a page at a time (tokens are kept 44 days at most);
    // each page's matches are deleted before the next page, so a retry after a stall starts with less.
    // Provisional tokens too: one in flight is then refused its confirmation (its request answers 503).
    do {
      const page = await this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'email = :email',
          ExpressionAttributeValues: { ':pk': partition, ':prefix': TOKEN_PREFIX, ':email': email },
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of (page.Items ?? []) as OnboardingTokenRecord[]) {
        await this.eraseToken(item);
        erased += 1;
      }
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);

    // The e-mail guard names the e-mail in its key. It normally went with its token's last
    // transition, or points at a token deleted above; if a token was issued while the query ran,
    // it points at that one, which goes too.
    const guardKey = { pk: partition, sk: emailGuardKey(email) };
    const guard = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: guardKey, ConsistentRead: true }),
    );
    const tokenSk = (guard.Item as { tokenSk?: string } | undefined)?.tokenSk;
    if (tokenSk !== undefined) {
      const late = await this.documents.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: partition, sk: tokenSk }, ConsistentRead: true }),
      );
      if (late.Item && (late.Item as OnboardingTokenRecord).email === email) {
        await this.eraseToken(late.Item as OnboardingTokenRecord);
        erased += 1;
      }
      try {
        await this.documents.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: guardKey,
            // Not a guard a newer token took meanwhile (that token is a later request's to settle).
            ConditionExpression: 'tokenSk = :tokenSk',
            ExpressionAttributeValues: { ':tokenSk': tokenSk },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return erased;
  }

  /** A token and its two pointer items, together; absent ones are fine (a parallel erasure). */
  private async eraseToken(record: OnboardingTokenRecord): Promise<void> {
    await withTransactionConflictRetry(() =>
      this.documents.send(new TransactWriteCommand({ TransactItems: this.deleteToken(record) })),
    );
  }

  private async findThrough(orgId: string, pointerKey: string): Promise<OnboardingTokenRecord | undefined> {
    const partition = organizationPartition(orgId);
    const pointer = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: partition, sk: pointerKey }, ConsistentRead: true }),
    );
    const tokenSk = (pointer.Item as { tokenSk?: string } | undefined)?.tokenSk;
    if (tokenSk === undefined) return undefined;
    const token = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: partition, sk: tokenSk }, ConsistentRead: true }),
    );
    // A provisional token is not yet (or never will be) one its user received.
    if (!token.Item || token.Item.provisionalUntil !== undefined) return undefined;
    return toRecord(token.Item as OnboardingTokenRecord);
  }

  /** Issued -> something else, and the e-mail guard released, in one transaction. */
  private async leaveIssued(
    record: OnboardingTokenRecord,
    now: Date,
    updateExpression: string,
    values: Record<string, string>,
    updated: OnboardingTokenRecord,
  ): Promise<OnboardingTokenRecord | OnboardingTokenStatus> {
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: this.tableName,
            Key: { pk: organizationPartition(record.orgId), sk: tokenKey(record) },
            UpdateExpression: updateExpression,
            ConditionExpression: IS_ISSUED,
            ExpressionAttributeValues: { ...values, ':nowIso': now.toISOString() },
          },
        },
        this.releaseEmailGuard(record),
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
      return updated;
    } catch (error) {
      if (cancellationReasons(error)[0] !== 'ConditionalCheckFailed') throw error;
      const current = await this.findById(record.orgId, record.tokenId);
      return current ? tokenStatus(current, now) : 'Revoked';
    }
  }

  /** A provisional token holds its e-mail only until `provisionalUntil`. */
  private emailGuardItem(record: OnboardingTokenRecord, provisionalUntil?: Date) {
    return {
      pk: organizationPartition(record.orgId),
      sk: emailGuardKey(record.email),
      tokenSk: tokenKey(record),
      expiresAtEpoch: epochSeconds((provisionalUntil ?? new Date(record.expiresAt)).toISOString()),
      ttl: retainUntil(record),
    };
  }

  /** The e-mail guard for `record`: free, expired, or (resend) held by `heldBy`. */
  private claimEmailGuard(record: OnboardingTokenRecord, now: Date, heldBy?: string, provisionalUntil?: Date) {
    return {
      Put: {
        TableName: this.tableName,
        Item: this.emailGuardItem(record, provisionalUntil),
        ConditionExpression:
          'attribute_not_exists(pk) OR expiresAtEpoch <= :now' + (heldBy === undefined ? '' : ' OR tokenSk = :heldBy'),
        ExpressionAttributeValues: {
          ':now': Math.floor(now.getTime() / 1000),
          ...(heldBy === undefined ? {} : { ':heldBy': heldBy }),
        },
      },
    };
  }

  /** Deletes the e-mail guard if it is `record`'s; never one that meanwhile belongs to another token. */
  private releaseEmailGuard(record: OnboardingTokenRecord) {
    return {
      Delete: {
        TableName: this.tableName,
        Key: { pk: organizationPartition(record.orgId), sk: emailGuardKey(record.email) },
        ConditionExpression: 'attribute_not_exists(pk) OR tokenSk = :tokenSk',
        ExpressionAttributeValues: { ':tokenSk': tokenKey(record) },
      },
    };
  }

  private putToken(record: OnboardingTokenRecord, provisionalUntil?: Date) {
    const partition = organizationPartition(record.orgId);
    const ttl = retainUntil(record);
    const pointer = (sk: string) => ({
      Put: {
        TableName: this.tableName,
        Item: { pk: partition, sk, tokenSk: tokenKey(record), ttl },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    return [
      {
        Put: {
          TableName: this.tableName,
          Item: {
            pk: partition,
            sk: tokenKey(record),
            ...record,
            ...(provisionalUntil ? { provisionalUntil: provisionalUntil.toISOString() } : {}),
            ttl,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      pointer(tokenIdKey(record.tokenId)),
      pointer(tokenHashKey(record.tokenHash)),
    ];
  }

  private deleteToken(record: OnboardingTokenRecord) {
    const partition = organizationPartition(record.orgId);
    return [tokenKey(record), tokenIdKey(record.tokenId), tokenHashKey(record.tokenHash)].map((sk) => ({
      Delete: { TableName: this.tableName, Key: { pk: partition, sk } },
    }));
  }
}

const emailTaken = () => new ConflictError('an unexpired onboarding token already exists for this e-mail');

/** The e-mail quota's conditional writes (shared/adapters/dynamodb/limits/email-quota.ts), after the token's items. */
const quotaWrites = (emailQuota: EmailQuotaSpend | undefined) =>
  (emailQuota?.writes ?? []) as NonNullable<TransactWriteCommandInput['TransactItems']>;

/** The token's own items passed; a quota item failed its condition: a concurrent e-mail spent it. */
function throwIfQuotaChanged(reasons: readonly string[], tokenItems: number, cause: unknown): void {
  if (reasons.slice(tokenItems).includes('ConditionalCheckFailed')) throw new QuotaChangedError({ cause });
}

const retainUntil = (record: Pick<OnboardingTokenRecord, 'expiresAt'>): number =>
  epochSeconds(record.expiresAt) + RETAIN_AFTER_EXPIRY_SECONDS;

function statusFilter(
  status: OnboardingTokenStatus,
  now: Date,
): { expression: string; values: Record<string, string> } {
  const nowIso = { ':nowIso': now.toISOString() };
  switch (status) {
    case 'Used':
      return { expression: 'attribute_exists(usedAt)', values: {} };
    case 'Revoked':
      return { expression: 'attribute_not_exists(usedAt) AND attribute_exists(revokedAt)', values: {} };
    case 'Expired':
      return {
        expression: 'attribute_not_exists(usedAt) AND attribute_not_exists(revokedAt) AND expiresAt <= :nowIso',
        values: nowIso,
      };
    case 'Issued':
      return { expression: IS_ISSUED, values: nowIso };
  }
}

function toRecord(item: OnboardingTokenRecord): OnboardingTokenRecord {
  return {
    orgId: item.orgId,
    tokenId: item.tokenId,
    tokenHash: item.tokenHash,
    tokenHint: item.tokenHint,
    email: item.email,
    firstName: item.firstName,
    lastName: item.lastName,
    createdAt: item.createdAt,
    expiresAt: item.expiresAt,
    ...(item.usedAt ? { usedAt: item.usedAt } : {}),
    ...(item.revokedAt ? { revokedAt: item.revokedAt } : {}),
    ...(item.revokedBy ? { revokedBy: item.revokedBy } : {}),
  };
}
