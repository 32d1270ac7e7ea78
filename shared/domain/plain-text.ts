/**
 * Text a person will read back (names, e-mail addresses): refused when it holds characters that
 * no name contains and that storage, mail or a reader's screen would mangle or be fooled by.
 * - C0 and C1 control characters (NUL, line breaks, escape, ...): DynamoDB, SES headers and PDFs
 *   reject or misrender them.
 * - Unpaired UTF-16 surrogates: not text at all; encoders reject them.
 * - Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they reorder
 *   what the reader sees (a name that displays as another). The plain direction marks U+200E and
 *   U+200F are allowed: they only nudge mixed-direction text and change no characters' order.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const REFUSED_CHARACTERS = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

export function isPlainText(value: string): boolean {
  return value.isWellFormed() && !REFUSED_CHARACTERS.test(value);
}

export const PLAIN_TEXT_HINT = 'must not contain control, unpaired surrogate or bidirectional override characters';
