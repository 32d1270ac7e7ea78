import fc from 'fast-check';
import { arbitraryOf, arbitraryOfType, JSON_TYPES, resolveSchema } from './json-schema-arbitrary.ts';

type Json = Record<string, any>;

/** The bearer token a request carries: the operation's scope, none, a malformed one, one without the scope, an expired one. */
export type Credential = 'scoped' | 'none' | 'malformed' | 'unscoped' | 'expired';

/** One request to send, named by what it tries. */
export interface ProbeRequest {
  name: string;
  method: string;
  /** Path and query string as they go on the wire (already percent-encoded). */
  target: string;
  headers: Record<string, string>;
  body?: string;
  credential: Credential;
}

/** An operation of the document with what its requests are built from. */
export interface DocumentOperation {
  method: string;
  path: string;
  /** The scope its token needs; undefined for an operation without security. */
  scope: string | undefined;
  pathParameters: Json[];
  queryParameters: Json[];
  headerParameters: Json[];
  bodySchema: Json | undefined;
  bodyRequired: boolean;
}

/** Every operation of the document, its parameters resolved. */
export function operationsOf(document: Json): DocumentOperation[] {
  return Object.entries(document.paths as Json).flatMap(([path, operations]) =>
    Object.entries(operations as Json).map(([method, operation]) => {
      const parameters = ((operation as Json).parameters ?? []).map((parameter: Json) =>
        resolveSchema(parameter, document),
      ) as Json[];
      const requestBody = (operation as Json).requestBody as Json | undefined;
      const security = ((operation as Json).security ?? document.security ?? []) as Json[];
      const scopes = security.flatMap((requirement) => Object.values(requirement).flat()) as string[];
      return {
        method: method.toUpperCase(),
        path,
        scope: security.length === 0 ? undefined : scopes[0],
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        headerParameters: parameters.filter((parameter) => parameter.in === 'header'),
        bodySchema: requestBody?.content?.['application/json']?.schema as Json | undefined,
        bodyRequired: requestBody?.required === true,
      };
    }),
  );
}

/** A request's parts before they are put on the wire. Path and query values are as sent (percent-encoded). */
interface RequestParts {
  pathValues: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** A JSON value, or text sent as it is. */
  body?: { json: unknown } | { text: string };
  contentType?: string | null;
}

const BODY_LIMIT_BYTES = 64 * 1024;
const CONTROL_CHARACTERS = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\r\n', '\t'];
const BIDIRECTIONAL_CHARACTERS = ['\u202e', '\u202a', '\u2066', '\u2069', '\u200f', '\u061c'];
const LONG_TEXT = 'a'.repeat(4096);

/**
 * The requests of one operation, generated from the document alone. `valid` parts come from the
 * schemas; `hostileCases` lists a request for every kind of hostility the contract names (each
 * credential, broken and non-object JSON, other content types, an oversized body, hostile path,
 * query and header values), and `fuzzedRequest` draws member and parameter values from fast-check.
 */
export function requestsOf(operation: DocumentOperation, document: Json) {
  const valid = validParts(operation, document);
  const build = (name: string, parts: RequestParts, credential: Credential = 'scoped'): ProbeRequest =>
    toRequest(operation, name, parts, credential);

  function hostileCases(seed: number): ProbeRequest[] {
    const [base] = fc.sample(valid, { numRuns: 1, seed });
    const parts = base!;
    const cases: ProbeRequest[] = fc
      .sample(valid, { numRuns: 3, seed: seed + 1 })
      .map((sample, i) => build(`valid request ${i + 1}`, sample));
    if (operation.scope) {
      for (const credential of ['none', 'malformed', 'unscoped', 'expired'] as const)
        cases.push(build(`credential: ${credential}`, parts, credential));
    } else {
      cases.push(build('credential: malformed (the operation needs none)', parts, 'malformed'));
    }
    if (operation.bodySchema) {
      const text = (body: string, contentType: string | null = 'application/json') =>
        ({ ...parts, body: { text: body }, contentType }) satisfies RequestParts;
      const json = JSON.stringify(bodyOf(parts) ?? {});
      cases.push(
        build('broken JSON', text('{"a": ')),
        build('JSON with a byte-order mark', text(`\ufeff${json}`)),
        build('a JSON array', text('[]')),
        build('a JSON string', text('"text"')),
        build('a JSON number', text('42')),
        build('JSON null', text('null')),
        build('an empty body', text('')),
        build('no content-type', text(json, null)),
        build('content-type text/plain', text(json, 'text/plain')),
        build('content-type form', text('a=b&c=d', 'application/x-www-form-urlencoded')),
        build('content-type XML', text('<a/>', 'application/xml')),
        build('content-type multipart', text('--x\r\n\r\n--x--', 'multipart/form-data; boundary=x')),
        build('content-type octet-stream', text(json, 'application/octet-stream')),
        build('content-type JSON in capitals with a charset', text(json, 'Application/JSON; charset=UTF-8')),
        build(
          'an oversized body',
          text(JSON.stringify({ ...asObject(bodyOf(parts)), padding: 'x'.repeat(BODY_LIMIT_BYTES) })),
        ),
        build('nested arrays 10,000 deep', text(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)),
      );
    }
    for (const parameter of operation.pathParameters) {
      const name = parameter.name as string;
      for (const [label, value] of hostilePathValues(parts.pathValues[name] ?? 'x'))
        cases.push(build(`path ${name}: ${label}`, { ...parts, pathValues: { ...parts.pathValues, [name]: value } }));
    }
    for (const parameter of operation.queryParameters) {
      const name = parameter.name as string;
      for (const [label, values] of hostileQueryValues())
        cases.push(
          build(`query ${name}: ${label}`, {
            ...parts,
            query: [
              ...parts.query.filter(([key]) => key !== name),
              ...values.map((value): [string, string] => [name, value]),
            ],
          }),
        );
    }
    cases.push(build('an unknown query parameter', { ...parts, query: [...parts.query, ['unknown', '1']] }));
    for (const parameter of operation.headerParameters) {
      const name = (parameter.name as string).toLowerCase();
      for (const [label, value] of [
        ['too long', 'k'.repeat(300)],
        ['Latin-1', 'clé-é'],
        ['empty', ''],
        ['spaces only', '   '],
      ] as const)
        cases.push(build(`header ${name}: ${label}`, { ...parts, headers: { ...parts.headers, [name]: value } }));
    }
    return cases;
  }

  /** One request with a member, a query value or a path value replaced by fast-check. */
  const fuzzedRequest: fc.Arbitrary<ProbeRequest> = valid.chain((parts) => {
    const mutations: Array<fc.Arbitrary<ProbeRequest>> = [fc.constant(build('valid request', parts))];
    const members = operation.bodySchema ? memberPaths(operation.bodySchema, document) : [];
    if (members.length > 0) {
      mutations.push(
        fc.constantFrom(...members).chain(({ path, schema }) =>
          memberMutation(schema).map(({ label, replace }) => {
            const body = replaceAt(bodyOf(parts) ?? {}, path, replace);
            return build(`body ${path.join('.')}: ${label}`, { ...parts, body: { json: body } });
          }),
        ),
      );
    }
    if (operation.queryParameters.length > 0) {
      mutations.push(
        fc
          .tuple(
            fc.constantFrom(...operation.queryParameters.map((parameter) => parameter.name as string)),
            hostileText(),
          )
          .map(([name, value]) =>
            build(`query ${name}: ${JSON.stringify(value)}`, {
              ...parts,
              query: [...parts.query.filter(([key]) => key !== name), [name, encodeURIComponent(value)]],
            }),
          ),
      );
    }
    if (operation.pathParameters.length > 0) {
      mutations.push(
        fc
          .tuple(
            fc.constantFrom(...operation.pathParameters.map((parameter) => parameter.name as string)),
            hostileText(),
          )
          .filter(([, value]) => value.length > 0)
          .map(([name, value]) =>
            build(`path ${name}: ${JSON.stringify(value)}`, {
              ...parts,
              pathValues: { ...parts.pathValues, [name]: encodeURIComponent(value) },
            }),
          ),
      );
    }
    return fc.oneof(...mutations);
  });

  return { hostileCases, fuzzedRequest };
}

/** Parts of a request the document says is valid. */
function validParts(operation: DocumentOperation, document: Json): fc.Arbitrary<RequestParts> {
  const pathValues = fc.record(
    Object.fromEntries(
      operation.pathParameters.map((parameter) => [
        parameter.name as string,
        arbitraryOf(parameter.schema as Json, document)
          .map((value) => encodeURIComponent(String(value)))
          .filter((value) => value.length > 0),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, string>>;
  const query = fc
    .tuple(
      ...operation.queryParameters.map((parameter) =>
        presentIfRequired(
          parameter,
          arbitraryOf(parameter.schema as Json, document).map((value): [string, string] => [
            parameter.name as string,
            encodeURIComponent(String(value)),
          ]),
        ),
      ),
    )
    .map((pairs) => pairs.filter((pair) => pair !== undefined));
  const headers = fc
    .tuple(
      ...operation.headerParameters.map((parameter) =>
        presentIfRequired(
          parameter,
          arbitraryOf(parameter.schema as Json, document).map((value): [string, string] => [
            (parameter.name as string).toLowerCase(),
            String(value),
          ]),
        ),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs.filter((pair) => pair !== undefined)));
  const body = operation.bodySchema
    ? arbitraryOf(operation.bodySchema, document).map((json) => ({ json }))
    : fc.constant(undefined);
  return fc.record({ pathValues, query, headers, body });
}

/** A required parameter always, an optional one half the time. */
function presentIfRequired<T>(parameter: Json, value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return parameter.required ? value : fc.option(value, { nil: undefined, freq: 2 });
}

function toRequest(
  operation: DocumentOperation,
  name: string,
  parts: RequestParts,
  credential: Credential,
): ProbeRequest {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, parameter: string) => parts.pathValues[parameter] ?? 'x');
  const query = parts.query.map(([key, value]) => `${encodeURIComponent(key)}=${value}`).join('&');
  const headers: Record<string, string> = { accept: 'application/json', ...parts.headers };
  let body: string | undefined;
  if (parts.body && 'json' in parts.body) body = JSON.stringify(parts.body.json);
  else if (parts.body) body = parts.body.text;
  const contentType = parts.contentType === undefined ? 'application/json' : parts.contentType;
  if (body !== undefined && contentType !== null) headers['content-type'] = contentType;
  return {
    name,
    method: operation.method,
    target: query ? `${path}?${query}` : path,
    headers,
    ...(body === undefined ? {} : { body }),
    credential,
  };
}

function bodyOf(parts: RequestParts): unknown {
  return parts.body && 'json' in parts.body ? parts.body.json : undefined;
}

function asObject(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** Members of a body schema, two levels deep (`filters.email`, `pagination.limit`), with their schemas. */
function memberPaths(schema: Json, document: Json): Array<{ path: string[]; schema: Json }> {
  const paths: Array<{ path: string[]; schema: Json }> = [];
  const visit = (node: Json, prefix: string[]): void => {
    const resolved = resolveSchema(node, document);
    for (const [name, member] of Object.entries((resolved.properties ?? {}) as Record<string, Json>)) {
      const memberSchema = resolveSchema(member, document);
      paths.push({ path: [...prefix, name], schema: memberSchema });
      if (prefix.length === 0 && memberSchema.properties) visit(memberSchema, [name]);
    }
  };
  visit(schema, []);
  return paths;
}

type Replace = (current: unknown) => unknown;

/** What a hostile client does to one member: each JSON type instead, dropped, oversized, control or bidirectional characters. */
function memberMutation(schema: Json): fc.Arbitrary<{ label: string; replace: Replace | typeof DROP }> {
  const replacedByType = fc
    .constantFrom(...JSON_TYPES)
    .chain((type) =>
      arbitraryOfType(type).map((value) => ({ label: `a ${type} ${short(value)}`, replace: (() => value) as Replace })),
    );
  const oversized = fc.constantFrom(1, 4096, BODY_LIMIT_BYTES).map((extra) => ({
    label: `oversized by ${extra}`,
    replace: ((current: unknown) => oversize(current, schema, extra)) as Replace,
  }));
  const withCharacters = (characters: string[], kind: string) =>
    fc.tuple(fc.constantFrom(...characters), fc.nat(8)).map(([character, at]) => ({
      label: `${kind} character U+${character.codePointAt(0)!.toString(16).padStart(4, '0')}`,
      replace: ((current: unknown) =>
        insert(typeof current === 'string' && current ? current : 'Ada', character, at)) as Replace,
    }));
  return fc.oneof(
    replacedByType,
    fc.constant({ label: 'dropped', replace: DROP }),
    oversized,
    withCharacters(CONTROL_CHARACTERS, 'control'),
    withCharacters(BIDIRECTIONAL_CHARACTERS, 'bidirectional'),
  );
}

const DROP = Symbol('drop');

function oversize(current: unknown, schema: Json, extra: number): unknown {
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes('array')) {
    const item = Array.isArray(current) && current.length > 0 ? current[0] : 'x';
    return Array.from({ length: ((schema.maxItems as number | undefined) ?? 100) + Math.min(extra, 4096) }, () => item);
  }
  if (types.includes('integer') || types.includes('number'))
    return extra === 1 ? ((schema.maximum as number | undefined) ?? Number.MAX_SAFE_INTEGER) + 1 : 1e308;
  if (types.includes('object'))
    return Object.fromEntries(Array.from({ length: Math.min(extra, 4096) }, (_, i) => [`member${i}`, i]));
  return 'x'.repeat(((schema.maxLength as number | undefined) ?? 1024) + extra);
}

function replaceAt(body: unknown, path: string[], replace: Replace | typeof DROP): unknown {
  const root = structuredClone(asObject(body));
  let parent: Json = root;
  for (const key of path.slice(0, -1)) {
    parent[key] = asObject(parent[key]);
    parent = parent[key] as Json;
  }
  const last = path.at(-1)!;
  if (replace === DROP) delete parent[last];
  else parent[last] = replace(parent[last]);
  return root;
}

function insert(text: string, character: string, at: number): string {
  const index = Math.min(at, text.length);
  return `${text.slice(0, index)}${character}${text.slice(index)}`;
}

/** Path values that must never reach a resource, each as sent on the wire. */
function hostilePathValues(valid: string): Array<[string, string]> {
  return [
    ['too long', LONG_TEXT],
    ['an encoded slash', `${valid}%2F..%2Fx`],
    ['encoded dot segments', '%2E%2E'],
    ['unicode', encodeURIComponent('žluťoučký-😀')],
    ['an encoded NUL', `${valid}%00`],
    ['a broken percent escape', '%zz%'],
    ['in capitals', valid.toUpperCase()],
    ['a bidirectional override', encodeURIComponent(`\u202e${decodeURIComponent(valid)}`)],
  ];
}

/** Query values for one parameter, each list sent as that many occurrences. */
function hostileQueryValues(): Array<[string, string[]]> {
  return [
    ['too long', [LONG_TEXT]],
    ['repeated', ['1', '2']],
    ['empty', ['']],
    ['unicode', [encodeURIComponent('žluťoučký-😀')]],
    ['control characters', ['%00%1B%7F']],
    ['a broken percent escape', ['%zz%']],
    ['not a number', ['abc']],
    ['a fraction', ['1.5']],
    ['negative', ['-1']],
    ['an exponent', ['1e3']],
    ['a huge number', ['99999999999999999999999']],
    ['a date far away', ['275760-09-13T00:00:00.001Z']],
  ];
}

/** Text a hostile client sends: any code points, long runs, control and bidirectional characters. */
function hostileText(): fc.Arbitrary<string> {
  return fc.oneof(
    // Well-formed: a lone surrogate cannot be percent-encoded.
    fc.string({ unit: 'binary', maxLength: 40 }).map((text) => text.toWellFormed()),
    fc.constantFrom(...CONTROL_CHARACTERS, ...BIDIRECTIONAL_CHARACTERS).map((character) => `a${character}b`),
    fc.nat(5000).map((length) => 'z'.repeat(length + 1)),
  );
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
