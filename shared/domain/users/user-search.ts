/**
 * The user-status `search` filter: what it matches, and the words it matches against.
 *
 * A search text matches a user when it equals the user's `id` exactly, or its folded form is the
 * start of the user's e-mail, or every white-space separated term of it is the start of some word
 * of the user's `name`. Case is folded in JavaScript, where it is Unicode-aware, both when words
 * are stored and when a search is asked, so "zoë" finds "Zoë" and "ÇELİK" finds "çelik" (SQL's
 * lower() in the C collation folds ASCII alone).
 */

/** Terms of one search beyond this are a 400: each term is one more index range to intersect. */
export const MAX_SEARCH_TERMS = 8;
/** Longest stored word, in UTF-8 bytes (an index key of Aurora DSQL holds 1 KiB, org and user id included). */
export const MAX_SEARCH_WORD_BYTES = 256;
/** Words kept per user: a name is a few words; a pathological one does not fill the index. */
export const MAX_WORDS_PER_USER = 16;

/**
 * Case-insensitive comparison form: NFC, then upper- and lower-cased, which gives Unicode's full
 * case folding for the cases names meet (ß and SS both become ss), final ς as σ (lower-casing
 * writes a word-final Σ as ς, so a prefix typed mid-word would miss it), then NFC again because
 * case mapping can decompose; the dotted capital İ lower-cases to i + U+0307, which is taken as
 * plain i, so "ÇELİK" is found by "çelik" as a Turkish reader expects.
 */
export function foldForSearch(text: string): string {
  return text
    .normalize('NFC')
    .toUpperCase()
    .toLowerCase()
    .replaceAll('i\u0307', 'i')
    .replaceAll('ς', 'σ')
    .normalize('NFC');
}

const utf8 = new TextEncoder();

/** Cut to at most `MAX_SEARCH_WORD_BYTES` UTF-8 bytes, on a code point boundary. */
export function clipToWordBytes(text: string): string {
  if (utf8.encode(text).length <= MAX_SEARCH_WORD_BYTES) return text;
  let clipped = '';
  let bytes = 0;
  for (const character of text) {
    bytes += utf8.encode(character).length;
    if (bytes > MAX_SEARCH_WORD_BYTES) break;
    clipped += character;
  }
  return clipped;
}

const SEPARATORS = /[\s\p{Z}]+/u;
/** Inside a word: what splits "Jean-Luc" or "O'Brien" into parts that are searchable on their own. */
const INNER_PUNCTUATION = /[^\p{L}\p{M}\p{N}]+/u;

/**
 * The words of a name as they are stored: folded, each white-space separated word whole
 * ("o'brien", "jean-luc") and each part after inner punctuation ("brien", "luc"), so both "o'b"
 * and "brien" find O'Brien. Unique, at most `MAX_WORDS_PER_USER`.
 */
export function nameWordsOf(name: string | undefined | null): string[] {
  if (typeof name !== 'string') return [];
  const words = new Set<string>();
  for (const word of foldForSearch(name).split(SEPARATORS)) {
    if (word === '' || word.includes('\u0000')) continue;
    words.add(clipToWordBytes(word));
    const parts = word.split(INNER_PUNCTUATION).filter(Boolean);
    if (parts.length > 1 || (parts.length === 1 && parts[0] !== word)) {
      for (const part of parts) words.add(clipToWordBytes(part));
    }
  }
  return [...words].slice(0, MAX_WORDS_PER_USER);
}

/** The folded terms of a search text (white space separates them; each is clipped like a stored word). */
export function searchTermsOf(search: string): string[] {
  return [
    ...new Set(
      foldForSearch(search)
        .split(SEPARATORS)
        .filter(Boolean)
        .map((term) => clipToWordBytes(term)),
    ),
  ];
}

/**
 * The least string greater than every string that starts with `prefix`, in code point order (the
 * C collation's order for UTF-8): the prefix with its last code point raised by one. `undefined`
 * when there is none (a prefix of only U+10FFFF), so the range has no upper end.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const codePoints = [...prefix].map((character) => character.codePointAt(0)!);
  while (codePoints.length > 0) {
    const last = codePoints.pop()!;
    if (last < 0x10ffff) {
      // Surrogates cannot stand alone in text: the next code point after U+D7FF is U+E000.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return String.fromCodePoint(...codePoints, next);
    }
  }
  return undefined;
}
