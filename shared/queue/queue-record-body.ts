import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';

/**
 * A reader of one kind of our queue messages: the record's body as `schema` has it, or undefined
 * for a body that is not one of them (not JSON, or not of that shape), which its consumer drops.
 */
export function queueRecordBody<TSchema extends v.GenericSchema>(
  schema: TSchema,
): (record: SQSRecord) => v.InferOutput<TSchema> | undefined {
  return (record) => {
    try {
      const parsed = v.safeParse(schema, JSON.parse(record.body));
      return parsed.success ? parsed.output : undefined;
    } catch {
      return undefined;
    }
  };
}
