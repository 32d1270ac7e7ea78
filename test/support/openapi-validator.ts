import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { responseSchemas } from '#shared/schemas/response-schemas.ts';

type Json = Record<string, any>;

/** Every response and error body (from shared/schemas/*-responses.ts): strict checks them for undocumented members. */
const RESPONSE_SCHEMAS = Object.keys(responseSchemas);

export interface OpenApiValidatorOptions {
  /**
   * The document allows additive members in responses (clients ignore them). Strict mode forbids
   * members the document does not name in the response schemas, so a test notices a
   * response that grew without its description.
   */
  strict?: boolean;
}

/** Ajv (draft 2020-12, formats) over an OpenAPI 3.1 document's components. */
export function openApiValidator(document: Json, options: OpenApiValidatorOptions = {}) {
  const components = structuredClone(document.components) as Json;
  if (options.strict) {
    for (const name of RESPONSE_SCHEMAS) closeObjects(components.schemas[name]);
  }
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false, allowUnionTypes: true });
  addFormats.default(ajv);
  // OpenAPI's own keywords: `discriminator` annotates a oneOf, `components` holds the schemas.
  ajv.addKeyword('discriminator');
  ajv.addKeyword('components');
  ajv.addSchema({ $id: 'openapi.json', components }, 'openapi.json');

  const compiled = new Map<string, ValidateFunction>();
  const byPointer = (pointer: string): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.getSchema(`openapi.json#${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      compiled.set(pointer, validate);
    }
    return validate;
  };

  return {
    /** A component schema's validator, e.g. `schema('ReportJob')`. */
    schema: (name: string): ValidateFunction => byPointer(`/components/schemas/${name}`),

    /**
     * Checks a real response against the document: the status is listed for the operation, the
     * body matches its schema, every required header is present. Returns the problems found.
     */
    checkResponse(
      route: { method: string; path: string },
      response: { status: number; headers: Headers; body: unknown },
    ): string[] {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Json | undefined;
      if (!operation) return [`${route.method} ${route.path} is not in the document`];
      let described = operation.responses[String(response.status)] as Json | undefined;
      if (!described) return [`${route.method} ${route.path} does not list status ${response.status}`];
      if (described.$ref) described = resolve(document, described.$ref as string);
      const problems: string[] = [];
      for (const [name, header] of Object.entries((described.headers ?? {}) as Json)) {
        const definition = (header as Json).$ref ? resolve(document, (header as Json).$ref) : (header as Json);
        if (definition.required && !response.headers.has(name)) problems.push(`header ${name} is missing`);
      }
      const schema = described.content?.['application/json']?.schema as Json | undefined;
      if (!schema) return problems;
      const validate = schema.$ref ? byPointer((schema.$ref as string).slice(1)) : ajv.compile(schema);
      if (!validate(response.body)) {
        problems.push(
          ...(validate.errors ?? []).map(
            (error) => `body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`,
          ),
        );
      }
      return problems;
    },
  };
}

function resolve(document: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')] as Json, document);
}

/** additionalProperties: false on every object with listed properties, down the tree (not through $ref). */
function closeObjects(schema: unknown): void {
  if (Array.isArray(schema)) {
    schema.forEach(closeObjects);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Json;
  if (node.properties && node.additionalProperties === undefined) node.additionalProperties = false;
  for (const value of Object.values(node)) closeObjects(value);
}
