import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

/** What came back for one request, as the client saw it. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The body as text ('' for none). */
  text: string;
}

/** An operation of the document: its method and its path template, e.g. `GET /v1/document/api/{id}`. */
export interface OperationKey {
  method: string;
  path: string;
}

/**
 * Contract §26's verdict on one answer, from the OpenAPI document alone: the status is declared for
 * the operation and is not a 5XX, the body is JSON of the schema declared for that status (closed:
 * a member the schema does not name is a problem too), a status declared without a body has none,
 * and every declared header is present when required and matches its schema when present. Returns
 * the problems found; none means the answer is declared.
 *
 * Ajv draft 2020-12 with ajv-formats, over the document's own components.
 */
export function answerChecker(document: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false, allowUnionTypes: true });
  addFormats.default(ajv);
  // OpenAPI's annotations inside schemas.
  ajv.addKeyword('discriminator');
  ajv.addKeyword('components');
  const components = structuredClone(document.components ?? {}) as Json;
  for (const name of responseSchemaNames(document)) closeObjects(components.schemas[name]);
  ajv.addSchema({ $id: DOCUMENT_ID, components }, DOCUMENT_ID);

  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (key: string, schema: Json): ValidateFunction => {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(withDocumentRefs(schema));
      compiled.set(key, validate);
    }
    return validate;
  };

  return {
    check(operationKey: OperationKey, answer: Answer): string[] {
      const label = `${operationKey.method.toUpperCase()} ${operationKey.path} answered ${answer.status}`;
      const operation = document.paths?.[operationKey.path]?.[operationKey.method.toLowerCase()] as Json | undefined;
      if (!operation) return [`${operationKey.method} ${operationKey.path} is not an operation of the document`];
      const problems: string[] = [];
      if (answer.status >= 500) problems.push(`${label}: a 5XX (${summary(answer.text)})`);
      const declaredRef = operation.responses?.[String(answer.status)] as Json | undefined;
      if (!declaredRef) return [...problems, `${label}: an undeclared status (${summary(answer.text)})`];
      const declared = resolve(document, declaredRef);

      for (const [name, headerRef] of Object.entries((declared.headers ?? {}) as Json)) {
        const header = resolve(document, headerRef as Json);
        const value = answer.headers.get(name);
        if (value === null) {
          if (header.required) problems.push(`${label}: header ${name} is missing`);
          continue;
        }
        const validate = validatorOf(`header ${name} ${JSON.stringify(header.schema)}`, header.schema as Json);
        if (!validate(headerValue(value, header.schema as Json)))
          problems.push(`${label}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
      }

      const schema = declared.content?.['application/json']?.schema as Json | undefined;
      if (!schema) {
        if (answer.text !== '') problems.push(`${label}: a body where none is declared (${summary(answer.text)})`);
        return problems;
      }
      const contentType = answer.headers.get('content-type') ?? '';
      if (!/^application\/json\s*(;|$)/i.test(contentType))
        problems.push(`${label}: content-type ${JSON.stringify(contentType)}, not application/json`);
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch {
        return [...problems, `${label}: the body is not JSON (${summary(answer.text)})`];
      }
      const validate = validatorOf(`${operationKey.method} ${operationKey.path} ${answer.status}`, schema);
      if (!validate(body)) {
        for (const error of validate.errors ?? [])
          problems.push(`${label}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`);
      }
      return problems;
    },
  };
}

const DOCUMENT_ID = 'openapi.json';

/** `#/components/...` in a schema taken out of the document points back into it. */
function withDocumentRefs(schema: Json): Json {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : value,
    ),
  ) as Json;
}

/** A header's text as the type its schema names (`RateLimit-Remaining: 3` is the integer 3). */
function headerValue(text: string, schema: Json): unknown {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(text.trim()))
    return Number(text);
  return text;
}

/** Components reachable from any response body: the service's answers, closed to undeclared members. */
function responseSchemaNames(document: Json): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (names.has(name)) return;
      names.add(name);
      visit(document.components.schemas[name]);
    }
    for (const value of Object.values(node)) visit(value);
  };
  const responses = [
    ...Object.values((document.paths ?? {}) as Json).flatMap((operations) =>
      Object.values(operations as Json).flatMap((operation) =>
        Object.values(((operation as Json).responses ?? {}) as Json),
      ),
    ),
    ...Object.values((document.components?.responses ?? {}) as Json),
  ] as Json[];
  for (const response of responses) visit(resolve(document, response).content);
  return names;
}

/** `additionalProperties: false` on every object schema that lists its properties, down the tree. */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(closeObjects);
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Json;
  if (node.properties && node.additionalProperties === undefined) node.additionalProperties = false;
  for (const value of Object.values(node)) closeObjects(value);
}

function resolve(document: Json, node: Json): Json {
  if (typeof node.$ref !== 'string') return node;
  const target = (node.$ref as string)
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json | undefined>(
      (at, key) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')] as Json | undefined,
      document,
    );
  if (!target) throw new Error(`the document has nothing at ${node.$ref}`);
  return resolve(document, target);
}

function summary(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || 'no body';
}
