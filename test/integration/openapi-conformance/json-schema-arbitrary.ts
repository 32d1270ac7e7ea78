import fc from 'fast-check';

type Json = Record<string, any>;

/** Every JSON type a member can be replaced by. */
export const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

const MAX_GENERATED_LENGTH = 24;
const EARLIEST = new Date('2000-01-01T00:00:00.000Z');
const LATEST = new Date('2099-12-31T23:59:59.999Z');

/**
 * Values a JSON Schema (the subset OpenAPI 3.1 documents use: type, enum, const, properties,
 * required, items, the length and range bounds, formats, patterns, anyOf/oneOf, $ref) accepts,
 * mostly: a value the generator gets wrong is answered with a 400, which is still a declared answer.
 */
export function arbitraryOf(schema: Json, document: Json): fc.Arbitrary<unknown> {
  const node = resolveSchema(schema, document);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const alternatives = (node.anyOf ?? node.oneOf) as Json[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => arbitraryOf(alternative, document)));
  const types = ([] as string[]).concat((node.type as string | string[] | undefined) ?? []);
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryOf({ ...node, type }, document)));
  switch (types[0]) {
    case 'object':
      return objectOf(node, document);
    case 'array': {
      const items = node.items ? arbitraryOf(node.items as Json, document) : fc.jsonValue();
      const bounds = { minLength: node.minItems ?? 0, maxLength: Math.min(node.maxItems ?? 4, 4) };
      return node.uniqueItems ? fc.uniqueArray(items, bounds) : fc.array(items, bounds);
    }
    case 'string':
      return stringOf(node);
    case 'integer':
      return fc.integer({ min: node.minimum ?? -1_000_000, max: node.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: node.minimum ?? -1e9,
        max: node.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue();
  }
}

function objectOf(node: Json, document: Json): fc.Arbitrary<unknown> {
  const properties = (node.properties ?? {}) as Record<string, Json>;
  const required = (node.required ?? []) as string[];
  const record = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, arbitraryOf(member, document)])),
    { requiredKeys: required.filter((name) => name in properties) },
  );
  const minProperties = (node.minProperties as number | undefined) ?? 0;
  return minProperties > 0 ? record.filter((value) => Object.keys(value).length >= minProperties) : record;
}

function stringOf(node: Json): fc.Arbitrary<string> {
  const minLength = (node.minLength as number | undefined) ?? 0;
  const maxLength = Math.max(
    minLength,
    Math.min((node.maxLength as number | undefined) ?? Infinity, MAX_GENERATED_LENGTH),
  );
  const fits = (value: string) => value.length >= minLength && value.length <= ((node.maxLength as number) ?? Infinity);
  switch (node.format) {
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc.date({ min: EARLIEST, max: LATEST, noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: EARLIEST, max: LATEST, noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
  }
  if (typeof node.pattern !== 'string') return fc.string({ unit: 'grapheme', minLength, maxLength });
  return fc.stringMatching(new RegExp(node.pattern, 'u')).filter(fits);
}

/** A value of one JSON type, whatever the schema says: what a hostile client puts in a member. */
export function arbitraryOfType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, -(2 ** 63)));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e308, -1e-308, 0.5));
    case 'string':
      return fc.string({ unit: 'binary', maxLength: MAX_GENERATED_LENGTH });
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
  }
}

/** The schema a `$ref` names, followed until there is none. */
export function resolveSchema(schema: Json, document: Json): Json {
  let node = schema;
  for (let hops = 0; typeof node.$ref === 'string'; hops++) {
    if (hops > 10) throw new Error(`a $ref loop at ${schema.$ref}`);
    node = (node.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((at, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')] as Json, document);
  }
  return node;
}
