import * as v from 'valibot';
import { processEnvironment } from './process-environment.ts';

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

/**
 * Validates `process.env` (or the given source) against a valibot schema once, at cold start.
 * A missing or malformed variable stops the function with a message naming every offender,
 * instead of surfacing later as an obscure SDK error.
 */
export function loadConfig<TSchema extends v.GenericSchema>(
  schema: TSchema,
  source: Record<string, string | undefined> = processEnvironment.variables(),
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, source, { abortEarly: false });
  if (result.success) return result.output;
  const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(environment)'}: ${issue.message}`);
  throw new ConfigurationError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}

export const requiredString = (name: string) =>
  v.pipe(v.string(`${name} is required`), v.trim(), v.minLength(1, `${name} must not be empty`));

export const optionalString = (defaultValue: string) =>
  v.optional(v.pipe(v.string(), v.trim(), v.minLength(1)), defaultValue);

export const positiveIntegerString = (name: string, defaultValue: number) =>
  v.pipe(
    v.optional(v.string(), String(defaultValue)),
    v.transform(Number),
    v.number(),
    v.integer(`${name} must be an integer`),
    v.minValue(1, `${name} must be positive`),
  );

/** A whole number from 1 to `max`; unset or empty reads as `defaultValue`. */
export const wholeNumberString = (name: string, defaultValue: number, max: number) =>
  v.pipe(
    v.optional(v.string(), String(defaultValue)),
    v.trim(),
    v.transform((value) => (value === '' ? String(defaultValue) : value)),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.minValue(1, `${name} must be at least 1`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );

/** A comma-separated list of at least one non-empty item (spaces around items ignored). */
export const commaSeparatedList = (name: string, what: string) =>
  v.pipe(
    v.string(),
    v.transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    ),
    v.minLength(1, `${name} must name at least one ${what} (comma-separated)`),
  );
