import * as v from 'valibot';
import { InvalidInputError, type FieldProblem } from '#shared/domain/errors.ts';

type AnyIssue = v.BaseIssue<unknown>;

/**
 * Parses input with a valibot schema and reports every problem at once in the contract's
 * terms: `field` as a camelCase path (`filters.guardianDob.gte`, `resultKeys[2]`), `code` as the
 * rule name (`isNotEmpty`, `isEmail`, ...) and `hint` naming the member as the client sent it.
 */
export function parseInput<TSchema extends v.GenericSchema>(schema: TSchema, input: unknown): v.InferOutput<TSchema> {
  // All members are checked, but each member stops at its first failed rule.
  const result = v.safeParse(schema, input, { abortEarly: false, abortPipeEarly: true });
  if (result.success) return result.output;
  throw new InvalidInputError(dedupe(result.issues.map(toFieldProblem)));
}

export function toFieldProblem(issue: AnyIssue): FieldProblem {
  const path = (issue.path ?? []).map((item) => item.key as string | number);
  const missingKey = isMissingKey(issue);
  const unknownKey = isUnknownKey(issue);
  const code = unknownKey ? 'isIn' : missingKey ? 'isNotEmpty' : codeFor(issue);
  const clientPath = formatPath(path, (key) => key);
  // An issue with the whole input (no path) is about the body, as in requireJsonObjectBody.
  return {
    field: formatPath(path, toCamelCase) || 'body',
    code,
    hint: `${clientPath || 'body'} ${phraseFor(code, issue)}`,
  };
}

function isMissingKey(issue: AnyIssue): boolean {
  return (
    (issue.type === 'object' || issue.type === 'strict_object' || issue.type === 'loose_object') &&
    issue.received === 'undefined' &&
    issue.expected !== null &&
    issue.expected.startsWith('"')
  );
}

function isUnknownKey(issue: AnyIssue): boolean {
  return issue.type === 'strict_object' && issue.expected === 'never';
}

const CODE_BY_ISSUE_TYPE: Record<string, string> = {
  string: 'isString',
  number: 'isNumber',
  boolean: 'isBoolean',
  object: 'isObject',
  strict_object: 'isObject',
  loose_object: 'isObject',
  record: 'isObject',
  array: 'isArray',
  email: 'isEmail',
  integer: 'isInt',
  min_value: 'min',
  max_value: 'max',
  max_length: 'maxLength',
  picklist: 'isIn',
  enum: 'isIn',
  literal: 'isIn',
  iso_date: 'isDateString',
  iso_timestamp: 'isDateString',
  non_empty: 'isNotEmpty',
  union: 'isIn',
};

function codeFor(issue: AnyIssue): string {
  if (issue.type === 'min_length') return issue.requirement === 1 ? 'isNotEmpty' : 'min';
  if (['check', 'partial_check', 'raw_check', 'custom', 'regex'].includes(issue.type)) {
    // Custom checks carry their contract code as "code: hint".
    const [code] = issue.message.split(':', 1);
    return code && /^[a-z][A-Za-z]+$/.test(code) ? code : 'isIn';
  }
  return CODE_BY_ISSUE_TYPE[issue.type] ?? 'isIn';
}

const CODED_MESSAGE = /^([a-z][A-Za-z]+):\s*(.+)$/;

function phraseFor(code: string, issue: AnyIssue): string {
  // A schema may word its own hint as "code: hint".
  const coded = CODED_MESSAGE.exec(issue.message);
  if (coded && coded[1] === code && coded[2]) return coded[2];
  switch (code) {
    case 'isNotEmpty':
      return issue.type === 'min_length' ? 'must not be empty' : 'is required';
    case 'isString':
      return 'must be a string';
    case 'isNumber':
      return 'must be a number';
    case 'isInt':
      return 'must be an integer';
    case 'isBoolean':
      return 'must be a boolean';
    case 'isObject':
      return 'must be an object';
    case 'isArray':
      return 'must be an array';
    case 'isEmail':
      return 'must be a valid e-mail address';
    case 'isDateString':
      return 'must be an ISO 8601 date (YYYY-MM-DD) or timestamp';
    case 'min':
      return `must be at least ${String(issue.requirement)}`;
    case 'max':
      return `must be at most ${String(issue.requirement)}`;
    case 'maxLength':
      return `must be at most ${String(issue.requirement)} characters`;
    case 'isIn':
      if (isUnknownKey(issue)) return 'is not a known member';
      return issue.expected
        ? `must be one of ${issue.expected.replace(/^\((.*)\)$/, '$1').replaceAll(' | ', ', ')}`
        : 'is not an allowed value';
    default: {
      const [, hint] = issue.message.split(/:\s*/, 2);
      return hint ?? issue.message;
    }
  }
}

function formatPath(path: ReadonlyArray<string | number>, formatKey: (key: string) => string): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${formatKey(key)}` : formatKey(key);
  }, '');
}

export function toCamelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.field}|${p.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
