import * as v from 'valibot';
import { userRecordSchema } from '#shared/domain/users/user-record-schema.ts';
import { MAX_LIMIT } from '#shared/domain/users/user-status-query.ts';

type Unwrapped<TSchema> = Extract<
  TSchema extends v.OptionalSchema<infer TWrapped, unknown> ? TWrapped : TSchema,
  v.GenericSchema
>;
type ReturnedField<TSchema> = v.OptionalSchema<v.NullableSchema<Unwrapped<TSchema>, undefined>, undefined>;
type ReturnedFields<TEntries extends v.ObjectEntries> = { [K in keyof TEntries]: ReturnedField<TEntries[K]> };

/** Every stored field may be asked for; one the user lacks is null. Types are those of the stored record. */
function returnedFields<TEntries extends v.ObjectEntries>(entries: TEntries): ReturnedFields<TEntries> {
  return Object.fromEntries(
    Object.entries(entries).map(([name, schema]) => [
      name,
      v.optional(
        v.nullable(
          schema.type === 'optional' ? (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : schema,
        ),
      ),
    ]),
  ) as ReturnedFields<TEntries>;
}

/** One result of POST /v1/user-status. */
export const userStatusRecordSchema = v.pipe(
  v.strictObject(returnedFields(userRecordSchema.entries)),
  v.description(
    'A user record holding exactly the fields named in `result_keys` (or the default fields), in that order; a field the user lacks is `null`. Field types are those of the stored record (the import schema).',
  ),
);

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** 200 of POST /v1/user-status. */
export const userStatusPageSchema = v.object({
  results: v.array(userStatusRecordSchema),
  pagination: v.object({
    limit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LIMIT)),
    offset: count,
    total: v.pipe(count, v.description('Matches in all pages.')),
  }),
});

export type UserStatusRecordBody = v.InferOutput<typeof userStatusRecordSchema>;
export type UserStatusPageBody = v.InferOutput<typeof userStatusPageSchema>;
