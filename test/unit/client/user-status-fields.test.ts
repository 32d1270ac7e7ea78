import { describe, expect, it } from 'vitest';
import * as client from '#client/index.ts';
import {
  MOBILE_REGISTRATION_STATUSES,
  REGISTRATION_STATUSES,
  USER_RECORD_FIELDS,
} from '#shared/domain/users/user-record.ts';
import * as query from '#shared/domain/users/user-status-query.ts';

describe("the client's user-status vocabulary is the service's", () => {
  it('lists every field and the default result keys', () => {
    expect(client.USER_FIELDS).toEqual(USER_RECORD_FIELDS);
    expect(client.DEFAULT_RESULT_KEYS).toEqual(query.DEFAULT_RESULT_KEYS);
  });

  it('sorts every filterable field into exactly one kind of filter', () => {
    expect([...client.STRING_FILTER_FIELDS, 'registration_status', 'mobile_registration_status'].sort()).toEqual(
      [...query.STRING_FILTER_FIELDS].sort(),
    );
    expect(client.BOOLEAN_FILTER_FIELDS).toEqual(query.BOOLEAN_FILTER_FIELDS);
    expect(client.NUMBER_RANGE_FIELDS).toEqual(query.NUMBER_FILTER_FIELDS);
    expect(client.DATE_RANGE_FIELDS).toEqual(query.DATE_FILTER_FIELDS);
    expect(client.INSTANT_RANGE_FIELDS).toEqual(query.INSTANT_FILTER_FIELDS);
    expect(client.RANGE_OPERATORS).toEqual(query.RANGE_OPERATORS);
  });

  it('offers the status values and categories the service accepts', () => {
    expect(client.REGISTRATION_STATUSES).toEqual(REGISTRATION_STATUSES);
    expect(client.MOBILE_REGISTRATION_STATUSES).toEqual(MOBILE_REGISTRATION_STATUSES);
    expect([...client.REGISTRATION_CATEGORIES].sort()).toEqual(Object.keys(query.REGISTRATION_CATEGORIES).sort());
  });
});
