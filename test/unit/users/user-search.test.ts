import { describe, expect, it } from 'vitest';
import { PostgresUserStatusReader } from '#shared/adapters/postgres/user-status-reader.ts';
import { buildUserStatusStatements } from '#shared/adapters/postgres/user-status-sql.ts';
import type { UserField } from '#shared/domain/users/user-status-query.ts';
import {
  foldForSearch,
  MAX_SEARCH_WORD_BYTES,
  MAX_WORDS_PER_USER,
  nameWordsOf,
  prefixUpperBound,
  searchTermsOf,
} from '#shared/domain/users/user-search.ts';
import { userStatusRequestSchema } from '#shared/schemas/user-status-schemas.ts';
import { parseInput } from '#shared/http/validation.ts';
import { InvalidInputError } from '#shared/domain/errors.ts';

describe('foldForSearch', () => {
  it.each([
    ['Zoë', 'zoë'],
    ['ZOE\u0308', 'zoë'],
    ['STRAßE', 'strasse'],
    ['Straße', 'strasse'],
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευσ'],
    ['Οδυσσεύς', 'οδυσσεύσ'],
    ['ÇELİK', 'çelik'],
    ['ДМИТРИЙ', 'дмитрий'],
  ])('folds %j to %j', (text, folded) => {
    expect(foldForSearch(text)).toBe(folded);
  });
});

describe('nameWordsOf', () => {
  it('keeps each word whole and each part after inner punctuation, folded, once', () => {
    expect(nameWordsOf("Jean-Luc O'Brien  jean-luc")).toEqual(['jean-luc', 'jean', 'luc', "o'brien", 'o', 'brien']);
  });

  it('has no words for a missing or blank name, and at most MAX_WORDS_PER_USER', () => {
    expect(nameWordsOf(undefined)).toEqual([]);
    expect(nameWordsOf('   ')).toEqual([]);
    const many = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(nameWordsOf(many)).toHaveLength(MAX_WORDS_PER_USER);
  });

  it('clips a word to MAX_SEARCH_WORD_BYTES on a code point boundary', () => {
    const [word] = nameWordsOf('ë'.repeat(400));
    expect(new TextEncoder().encode(word).length).toBeLessThanOrEqual(MAX_SEARCH_WORD_BYTES);
    expect(word).toBe('ë'.repeat(MAX_SEARCH_WORD_BYTES / 2));
  });
});

describe('prefixUpperBound', () => {
  it('raises the last code point, so [p, bound) holds exactly the strings starting with p', () => {
    expect(prefixUpperBound('zo')).toBe('zp');
    expect(prefixUpperBound('zoë')).toBe('zoì');
    expect(prefixUpperBound('a\u{10FFFF}')).toBe('b');
    expect(prefixUpperBound('\u{10FFFF}')).toBeUndefined();
    expect(prefixUpperBound('\uD7FF')).toBe('\uE000');
    // An emoji after the prefix still sorts below the bound (U+FFFF would not be one).
    const bound = prefixUpperBound('ab')!;
    expect('ab\u{1F600}' < bound && 'ab\u{1F600}' >= 'ab').toBe(true);
  });
});

describe('filters.search in the request and in SQL', () => {
  const parse = (search: unknown) => parseInput(userStatusRequestSchema, { filters: { search } });

  it('trims, folds and splits the text into terms', () => {
    expect(parse('  Zoë  ÅNG ').filters).toEqual([{ kind: 'search', text: 'Zoë  ÅNG', terms: ['zoë', 'ång'] }]);
    expect(searchTermsOf('a a A')).toEqual(['a']);
  });

  it('refuses blank text and more than 8 words', () => {
    for (const [search, code] of [
      ['  ', 'isNotEmpty'],
      ['a b c d e f g h i', 'maxLength'],
      [7, 'isString'],
    ] as const) {
      try {
        parse(search);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as InvalidInputError).problems).toEqual([
          expect.objectContaining({ field: 'filters.search', code }),
        ]);
      }
    }
  });

  it('binds every value: the word ranges, the e-mail range and the id; the text never enters the SQL', () => {
    const text = "o'b%_ x";
    const { filters } = parse(text);
    const { page, count } = buildUserStatusStatements('acme', filters, { offset: 0, limit: 10, fields: ['id'] });
    expect(page.text).not.toContain("o'b");
    expect(page.text).toContain('FROM user_name_words WHERE org_id = $1 AND word >= $2 AND word < $3 INTERSECT');
    // White space in the text: no e-mail can start with it, so no e-mail range.
    expect(page.text).not.toContain('email_key');
    expect(page.values).toEqual(['acme', "o'b%_", "o'b%`", 'x', 'y', text, 10, 0]);
    expect(count.text).toBe(
      'SELECT count(DISTINCT m.user_id)::integer AS total FROM (' +
        '(SELECT created_at, user_id FROM user_name_words WHERE org_id = $1 AND word >= $2 AND word < $3 INTERSECT SELECT created_at, user_id FROM user_name_words WHERE org_id = $1 AND word >= $4 AND word < $5) UNION ALL (SELECT created_at, id FROM users WHERE org_id = $1 AND id = $6)) m',
    );
  });

  it('beside another filter, reads the matches once as an array of ids', () => {
    const { filters } = parseInput(userStatusRequestSchema, { filters: { search: 'Zo', city: 'Lima' } });
    const statement = buildUserStatusStatements('acme', filters, { offset: 0, limit: 10, fields: ['id'] }).page;
    expect(statement.text).toContain('city = $2 AND id = ANY(ARRAY(SELECT m.user_id FROM (');
    expect(statement.text).toContain('email_key >= $5 AND email_key < $6');
    expect(statement.values).toEqual(['acme', 'Lima', 'zo', 'zp', 'zo', 'zp', 'Zo', 10, 0]);
  });

  it('matches nothing for text PostgreSQL cannot hold', () => {
    const { filters } = parse('a\u0000b');
    expect(buildUserStatusStatements('acme', filters, { offset: 0, limit: 10, fields: ['id'] }).count.text).toBe(
      'SELECT count(*)::integer AS total FROM users WHERE org_id = $1 AND FALSE',
    );
  });
});

describe('PostgresUserStatusReader with a search alone', () => {
  /** Answers the count with `total`, any other statement with `rows`, and keeps what it was sent. */
  const databaseAnswering = (total: number, rows: Array<Record<string, unknown>>) => {
    const sent: string[] = [];
    return {
      sent,
      query: async <TRow extends object>(text: string): Promise<TRow[]> => {
        sent.push(text);
        return (text.startsWith('SELECT count(') ? [{ total }] : rows) as TRow[];
      },
    };
  };
  const search = parseInput(userStatusRequestSchema, { filters: { search: 'm' } }).filters;
  const window = { offset: 0, limit: 50, fields: ['id'] as UserField[] };

  it('counts first; with 100 times more matches than the page reaches, walks the users in page order', async () => {
    const database = databaseAnswering(5_000, [{ id: 'u-1' }]);
    const page = await new PostgresUserStatusReader(database).findPage('acme', search, window);
    expect(page).toMatchObject({ total: 5_000, records: [{ id: 'u-1' }], accessPath: 'sql:count+walk' });
    expect(database.sent).toHaveLength(2);
    expect(database.sent[1]).toContain(
      'EXISTS (SELECT 1 FROM user_name_words w WHERE w.org_id = $1 AND w.user_id = users.id',
    );
  });

  it('with fewer matches, pages the grouped matches; with none, sends no page', async () => {
    const few = databaseAnswering(4_999, [{ id: 'u-1' }]);
    expect(await new PostgresUserStatusReader(few).findPage('acme', search, window)).toMatchObject({
      accessPath: 'sql:count+page',
    });
    expect(few.sent[1]).toContain('GROUP BY m.created_at, m.user_id');
    const none = databaseAnswering(0, []);
    expect(await new PostgresUserStatusReader(none).findPage('acme', search, window)).toMatchObject({
      total: 0,
      records: [],
    });
    expect(none.sent).toHaveLength(1);
  });
});
