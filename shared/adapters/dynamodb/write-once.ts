import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { logger } from '#shared/observability/logger.ts';

/** The attribute a write stores with the item, and the value that is this call's alone. */
export interface WriteMark {
  attribute: string;
  value: string;
}

/** A Put must hold its mark in `Item`; an Update must set it in its `UpdateExpression`. */
export type ConditionalWrite = { Put: PutCommandInput } | { Update: UpdateCommandInput };

export type ConditionalWriteOutcome =
  /** This attempt applied it: `attributes` as its `ReturnValues` asked. */
  | { kind: 'written'; attributes: Record<string, unknown> | undefined }
  /** An earlier attempt of this call applied it and its answer was lost: `item` as it left it, in DynamoDB's JSON. */
  | { kind: 'written-earlier'; item: Record<string, AttributeValue> }
  /** The condition failed on another write's item (`item`, in DynamoDB's JSON), or on no item. */
  | { kind: 'condition-failed'; item: Record<string, AttributeValue> | undefined };

/**
 * A single-item conditional write (PutItem, UpdateItem) that stays right when the SDK sends it
 * twice. The SDK retries an attempt that got no answer in time (`ATTEMPT_TIMEOUT_MS` in
 * shared/adapters/aws-clients.ts) or a 5XX, and that attempt may have reached DynamoDB and been
 * applied: the retry then meets the item its own call wrote, and its condition
 * (`attribute_not_exists(pk)`, `version = :version`, a status) fails.
 *
 * So the write carries a mark: an attribute written with the item whose value only this call
 * writes (a fresh id, or one the item holds anyway: an event's id, a worker attempt's id). When
 * the condition fails, DynamoDB returns the item as it is (`ReturnValuesOnConditionCheckFailure`);
 * an item carrying the mark is this call's own write, landed by an attempt whose answer was lost,
 * and the write is done. An update is also conditioned on the item not carrying its mark yet: one
 * whose condition still holds after it landed (a counter below its limit) would apply twice. A Put
 * that passes again writes the same item again.
 *
 * What the mark cannot show: another write that replaced the item between the lost answer and the
 * retry. The retry then meets that write as any concurrent writer would (docs/failure-handling.md).
 */
export async function writeOnce(
  documents: DynamoDBDocumentClient,
  write: ConditionalWrite,
  mark: WriteMark,
): Promise<ConditionalWriteOutcome> {
  try {
    const { Attributes } =
      'Put' in write
        ? await documents.send(new PutCommand(markedPut(write.Put, mark)))
        : await documents.send(new UpdateCommand(markedUpdate(write.Update, mark)));
    return { kind: 'written', attributes: Attributes };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // The document client leaves the exception's item as DynamoDB sent it: `{ writeId: { S: '…' } }`.
    const item = error.Item;
    if (item?.[mark.attribute]?.S !== mark.value) return { kind: 'condition-failed', item };
    const tableName = 'Put' in write ? write.Put.TableName : write.Update.TableName;
    logger.info('a retried conditional write met its own earlier attempt, applied', { tableName });
    return { kind: 'written-earlier', item };
  }
}

function markedPut(input: PutCommandInput, mark: WriteMark): PutCommandInput {
  if (input.Item?.[mark.attribute] !== mark.value) {
    throw new Error(`a marked Put writes its mark: Item.${mark.attribute} is not the mark's value`);
  }
  return { ...input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' };
}

function markedUpdate(input: UpdateCommandInput, mark: WriteMark): UpdateCommandInput {
  const notYetApplied = 'attribute_not_exists(#writeMark) OR #writeMark <> :writeMark';
  return {
    ...input,
    ConditionExpression: input.ConditionExpression
      ? `(${input.ConditionExpression}) AND (${notYetApplied})`
      : notYetApplied,
    ExpressionAttributeNames: { ...input.ExpressionAttributeNames, '#writeMark': mark.attribute },
    ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ':writeMark': mark.value },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
