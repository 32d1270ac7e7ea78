import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, type FieldProblem } from '#shared/domain/errors.ts';
import { parseInput } from '#shared/http/validation.ts';
import * as auditSchemas from '#shared/schemas/audit-schemas.ts';
import * as onboardingTokenSchemas from '#shared/schemas/onboarding-token-schemas.ts';
import * as reportJobSchemas from '#shared/schemas/report-job-schemas.ts';
import * as webhookSchemas from '#shared/schemas/webhook-schemas.ts';

/**
 * Every listing's query string schema (contract §27): a range whose start is after its end is a
 * 400 naming the start, never a query handed to the store (which answered 500).
 */
const listQuerySchemas = Object.entries({
  ...auditSchemas,
  ...onboardingTokenSchemas,
  ...reportJobSchemas,
  ...webhookSchemas,
}).filter(([name]) => name.endsWith('ListQuerySchema')) as [string, v.GenericSchema][];

/** The listings that take a range, by schema; every other listing must name no range member. */
const RANGES: Record<string, { start: string; end: string }> = {
  auditEventListQuerySchema: { start: 'from', end: 'to' },
};

/** Member names a range bound would have: from/to, since/until, createdAfter/Before, ... */
const RANGE_BOUND_NAME = /^(from|to|since|until|start|end)$|(After|Before|From|To|Since|Until)$/;

const entriesOf = (schema: v.GenericSchema): string[] => {
  const object = 'entries' in schema ? schema : (schema as unknown as { pipe: v.GenericSchema[] }).pipe[0]!;
  return Object.keys((object as unknown as { entries: v.ObjectEntries }).entries);
};

function problemsOf(schema: v.GenericSchema, input: unknown): readonly FieldProblem[] {
  try {
    parseInput(schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).problems;
  }
  throw new Error('expected parseInput to reject the input');
}

describe('the listings’ query string schemas', () => {
  it('are all here: the four listings that take a query string', () => {
    expect(listQuerySchemas.map(([name]) => name).sort()).toEqual([
      'auditEventListQuerySchema',
      'onboardingTokenListQuerySchema',
      'reportJobListQuerySchema',
      'webhookDeliveryListQuerySchema',
    ]);
  });

  it.each(listQuerySchemas.filter(([name]) => !RANGES[name]))(
    '%s names no range member (a new one must come with the order check and a line in RANGES)',
    (_name, schema) => {
      expect(entriesOf(schema).filter((member) => RANGE_BOUND_NAME.test(member))).toEqual([]);
    },
  );

  describe.each(Object.entries(RANGES))('%s', (name, { start, end }) => {
    const schema = listQuerySchemas.find(([candidate]) => candidate === name)![1];

    it(`answers 400 naming ${start} when ${start} is after ${end}`, () => {
      expect(problemsOf(schema, { [start]: '2030-01-01', [end]: '2020-01-01' })).toEqual([
        { field: start, code: 'max', hint: `${start} must not be after ${end}` },
      ]);
    });

    it('compares instants, not the text: a date after a timestamp of the day before', () => {
      expect(problemsOf(schema, { [start]: '2024-03-02', [end]: '2024-03-01T23:59:59Z' })).toEqual([
        { field: start, code: 'max', hint: `${start} must not be after ${end}` },
      ]);
      expect(problemsOf(schema, { [start]: '2024-03-02T00:00:00+01:00', [end]: '2024-03-01T22:00:00Z' })).toEqual([
        { field: start, code: 'max', hint: `${start} must not be after ${end}` },
      ]);
    });

    it('accepts a range of one instant, either bound alone, and neither', () => {
      expect(parseInput(schema, { [start]: '2024-03-01', [end]: '2024-03-01T00:00:00Z' })).toMatchObject({
        [start]: '2024-03-01T00:00:00.000Z',
        [end]: '2024-03-01T00:00:00.000Z',
      });
      expect(parseInput(schema, { [start]: '2030-01-01' })).toMatchObject({ [start]: '2030-01-01T00:00:00.000Z' });
      expect(parseInput(schema, { [end]: '2020-01-01' })).toMatchObject({ [end]: '2020-01-01T00:00:00.000Z' });
      expect(parseInput(schema, {})).not.toHaveProperty(start);
    });

    it(`names only the malformed bound, not the order, when ${start} is no date`, () => {
      expect(problemsOf(schema, { [start]: 'yesterday', [end]: '2020-01-01' })).toEqual([
        expect.objectContaining({ field: start, code: 'isDateString' }),
      ]);
    });
  });
});
