import { isPlainText } from '#shared/domain/plain-text.ts';
import {
  toJsonSchema,
  toJsonSchemaDefs,
  type ConversionConfig,
  type JsonSchema,
  type OverrideSchemaContext,
} from '@valibot/to-json-schema';
import * as v from 'valibot';
import {
  ISO_DATE_OR_TIMESTAMP,
  isIsoDateOrTimestamp,
  toCalendarDate,
  toInstant,
} from '#shared/domain/users/user-status-query.ts';
import {
  holdsFewSearchTerms,
  isStorableMagnitude,
  namesABound,
  toUserStatusQuery,
} from '#shared/schemas/user-status-schemas.ts';
import { isRangeInOrder } from '#shared/schemas/range-parameters.ts';

/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) as it is written into the document. */
export type SchemaObject = { [key: string]: unknown };

type AnyAction = { type: string; requirement?: unknown; operation?: unknown };

/**
 * The checks and transforms the handlers' schemas use that JSON Schema has no keyword for, each
 * recognised by identity (not by message text) and given its nearest JSON Schema meaning. Anything
 * else that cannot be converted makes the conversion throw, so a new custom rule in a handler
 * schema stops `npm run openapi` (and the drift test) until it is described here.
 */
function overrideAction(action: AnyAction, jsonSchema: JsonSchema): JsonSchema | undefined {
  if (action.type === 'check') {
    if (action.requirement === isIsoDateOrTimestamp) return { ...jsonSchema, pattern: ISO_DATE_OR_TIMESTAMP.source };
    // "At least one of gt, gte, lt, lte, eq": the range object's members are exactly those operators.
    if (action.requirement === namesABound) return { ...jsonSchema, minProperties: 1 };
    // The smallest magnitude (1e-130) has no useful JSON Schema form; the 400 explains it.
    if (action.requirement === isStorableMagnitude) return { ...jsonSchema };
    // At most MAX_SEARCH_TERMS words: the member's description says so.
    if (action.requirement === holdsFewSearchTerms) return { ...jsonSchema };
    // Names and e-mails: no control or bidirectional override characters (plain-text.ts).
    if (action.requirement === isPlainText)
      return { ...jsonSchema, pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$' };
  }
  // A listing's `from` not after its `to`: no JSON Schema keyword compares two members; a 400 says so.
  if (action.type === 'partial_check' && action.requirement === isRangeInOrder) return { ...jsonSchema };
  if (action.type === 'transform') {
    // Stored values: a date is cut to its calendar date, an instant to one canonical UTC form.
    if (action.operation === toCalendarDate) return withoutPattern(jsonSchema, { format: 'date' });
    if (action.operation === toInstant) return withoutPattern(jsonSchema, { format: 'date-time' });
    // Maps the validated wire body to the domain's query; the wire shape is what is documented.
    if (action.operation === toUserStatusQuery) return { ...jsonSchema };
  }
  return undefined;
}

function withoutPattern(jsonSchema: JsonSchema, extra: JsonSchema): JsonSchema {
  const { pattern: _pattern, ...rest } = jsonSchema;
  return { ...rest, ...extra };
}

const conversion: ConversionConfig = {
  target: 'draft-2020-12',
  // A pipeline is described from its last schema on: the value the handler works with after its
  // coercions. For these schemas that is what a client sends: `limit` is an integer (parsed from
  // the query string), `mobile_registration_status` one of the listed values (after trimming),
  // a range object an object (after the guard that refuses arrays).
  typeMode: 'output',
  errorMode: 'throw',
  // Normalisations that keep the type; the descriptions say that values are trimmed.
  ignoreActions: ['trim', 'to_lower_case'],
  overrideAction: ({ valibotAction, jsonSchema }) => overrideAction(valibotAction as AnyAction, jsonSchema),
  overrideSchema: (context) => overrideSchema(context),
};

/** Where a named schema is found in the document. */
const componentRef = (name: string) => `#/components/schemas/${name}`;

function overrideSchema({ valibotSchema, jsonSchema, referenceMap }: OverrideSchemaContext): JsonSchema | undefined {
  // A default is written as the handler receives it (`'25'` from a query string); the document
  // gives it as the pipeline produces it (25), like the rest of the schema.
  if (
    valibotSchema.type === 'optional' &&
    (valibotSchema as v.OptionalSchema<v.GenericSchema, unknown>).default !== undefined
  ) {
    return { ...jsonSchema, default: v.parse(valibotSchema, undefined) as JsonSchema['default'] };
  }
  // `type: ['string', 'null']` rather than `anyOf` with `{type: 'null'}`: the same values, and the
  // form code generators and linters read best.
  if (valibotSchema.type === 'nullable') return collapsedNullable(jsonSchema);
  // A literal's type, which JSON Schema's `const` leaves implicit.
  if (valibotSchema.type === 'literal' && jsonSchema.const !== undefined) {
    const literal = jsonSchema.const;
    const type = typeof literal === 'number' ? (Number.isInteger(literal) ? 'integer' : 'number') : typeof literal;
    return { type: type as 'string' | 'integer' | 'number' | 'boolean', ...jsonSchema };
  }
  // A variant of named objects: OpenAPI's discriminator maps each value of the key to its schema.
  if (valibotSchema.type === 'variant')
    return withDiscriminator(valibotSchema as unknown as AnyVariant, jsonSchema, referenceMap);
  return undefined;
}

function collapsedNullable(jsonSchema: JsonSchema): JsonSchema | undefined {
  const { anyOf, ...rest } = jsonSchema;
  const inner = anyOf?.[0];
  if (anyOf?.length !== 2 || typeof inner !== 'object' || typeof inner.type !== 'string') return undefined;
  return {
    ...inner,
    ...rest,
    type: [inner.type, 'null'],
    ...(Array.isArray(inner.enum) ? { enum: [...inner.enum, null] } : {}),
  };
}

type AnyVariant = { key: string; options: ReadonlyArray<v.GenericSchema & { entries: v.ObjectEntries }> };

function withDiscriminator(
  variant: AnyVariant,
  jsonSchema: JsonSchema,
  referenceMap: OverrideSchemaContext['referenceMap'],
): JsonSchema | undefined {
  const mapping: Record<string, string> = {};
  for (const option of variant.options) {
    const name = referenceMap.get(option);
    if (!name) return undefined;
    const member = option.entries[variant.key] as { options?: readonly string[]; literal?: string } | undefined;
    for (const value of member?.options ?? (member?.literal === undefined ? [] : [member.literal]))
      mapping[value] = componentRef(name);
  }
  return { ...jsonSchema, discriminator: { propertyName: variant.key, mapping } } as JsonSchema;
}

/** A handler's valibot schema as a JSON Schema, without the `$schema` member (the document fixes the dialect). */
export function jsonSchemaOf(schema: v.GenericSchema): SchemaObject {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, conversion);
  return tidy(converted) as SchemaObject;
}

/** Drops empty `required` lists, which to-json-schema writes on every object. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => !(key === 'required' && Array.isArray(member) && member.length === 0))
      .map(([key, member]) => [key, tidy(member)]),
  );
}

/**
 * Named schemas as the document's components: a schema that is itself one of `definitions` (by
 * identity) is written as a `$ref` to its component.
 */
export function componentSchemasOf(definitions: Record<string, v.GenericSchema>): Record<string, SchemaObject> {
  const converted = toJsonSchemaDefs(definitions, {
    ...conversion,
    overrideRef: ({ referenceId }) => componentRef(referenceId),
  });
  return tidy(converted) as Record<string, SchemaObject>;
}
