import openApiDocument from '#openapi.json' with { type: 'json' };
import type { UserField, UserStatusFilters } from '#client/index.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

type Schema = { type?: string | string[]; properties?: Record<string, Schema> };

/** The filter members as the OpenAPI document describes them: their JSON types come from there. */
const filterSchemas =
  (openApiDocument.components.schemas.UserStatusRequest.properties.filters as Schema).properties ?? {};
const userFields = openApiDocument.components.schemas.UserStatusRequest.properties.result_keys.items
  .enum as UserField[];
const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq'];

/**
 * `--filter` arguments to the request's `filters`: `name=value` for an exact match, `name.op=value`
 * (op: gt, gte, lt, lte, eq) for a range. Values take the member's type from the OpenAPI
 * document: `true`/`false` for booleans, numbers for numeric ranges, text for everything else.
 * A name the document does not know is sent as text, so the service's 400 names the problem.
 */
export function parseUserFilters(args: readonly string[]): UserStatusFilters {
  const filters: Record<string, unknown> = {};
  for (const arg of args) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:\.([a-z]+))?=(.*)$/s.exec(arg);
    if (!match)
      throw new UsageError(`--filter ${arg}: expected name=value or name.op=value (op: ${RANGE_OPERATORS.join(', ')})`);
    const [, name, operator, raw] = match as unknown as [string, string, string | undefined, string];
    const schema = filterSchemas[name];
    if (operator !== undefined) {
      if (!RANGE_OPERATORS.includes(operator))
        throw new UsageError(`--filter ${arg}: unknown operator ${operator} (use ${RANGE_OPERATORS.join(', ')})`);
      if (schema && schema.type !== 'object')
        throw new UsageError(`--filter ${arg}: ${name} is matched exactly; write ${name}=value`);
      const bound = schema?.properties?.[operator]?.type === 'number' ? toNumber(arg, raw) : raw;
      const range = (filters[name] ??= {}) as Record<string, unknown>;
      range[operator] = bound;
      continue;
    }
    if (schema?.type === 'object')
      throw new UsageError(`--filter ${arg}: ${name} is a range; write ${name}.gte=value (or gt, lt, lte, eq)`);
    filters[name] = schema?.type === 'boolean' ? toBoolean(arg, raw) : raw;
  }
  return filters;
}

/** `--keys a,b,c`; names the document does not know are refused here, with the list of known ones. */
export function parseResultKeys(value: string): UserField[] {
  const keys = value
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys.length === 0) throw new UsageError('--keys needs at least one field name');
  const unknown = keys.filter((key) => !userFields.includes(key as UserField));
  if (unknown.length > 0)
    throw new UsageError(`--keys: unknown field ${unknown.join(', ')}; known fields: ${userFields.join(', ')}`);
  return keys as UserField[];
}

function toNumber(arg: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--filter ${arg}: ${raw} is not a number`);
  return value;
}

function toBoolean(arg: string, raw: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new UsageError(`--filter ${arg}: expected true or false`);
}
