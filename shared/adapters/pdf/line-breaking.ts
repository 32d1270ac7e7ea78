import LineBreaker from 'linebreak';

/** Width in points of a piece of one-line text. */
export type WidthOf = (text: string) => number;

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * Breaks one paragraph into lines no wider than `maxWidth`, only where UAX #14 allows (at spaces,
 * after hyphens, between CJK ideographs, ...; the `linebreak` package). A piece between two break
 * opportunities that is alone wider than the line (a long e-mail address or id) is broken between
 * graphemes, never inside one. Widths add up piece by piece; trailing spaces do not count.
 */
export function wrapParagraph(text: string, maxWidth: number, widthOf: WidthOf): string[] {
  if (text.trim() === '') return [''];
  // Most values fit: measured whole, the line is shaped once and drawn from the same shaping.
  const whole = text.trim();
  if (widthOf(whole) <= maxWidth) return [whole];
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (const piece of breakablePieces(text)) {
    const word = piece.trimEnd();
    const trailing = piece.slice(word.length);
    const wordWidth = widthOf(word);
    if (line !== '' && lineWidth + wordWidth > maxWidth) {
      lines.push(line.trimEnd());
      line = '';
      lineWidth = 0;
    }
    if (line === '' && wordWidth > maxWidth) {
      const parts = breakBetweenGraphemes(word, maxWidth, widthOf);
      lines.push(...parts.slice(0, -1));
      line = parts.at(-1) ?? '';
      lineWidth = widthOf(line);
    } else {
      line += word;
      lineWidth += wordWidth;
    }
    if (trailing !== '') {
      line += trailing;
      lineWidth += widthOf(trailing);
    }
  }
  lines.push(line.trimEnd());
  return lines.map((each) => each.trimStart()).filter((each, index) => each !== '' || index === 0);
}

/** Wraps each newline-separated paragraph of `text`. */
export function wrapText(text: string, maxWidth: number, widthOf: WidthOf): string[] {
  return text.split('\n').flatMap((paragraph) => wrapParagraph(paragraph, maxWidth, widthOf));
}

/** `text`, cut between graphemes and ended with an ellipsis if it is wider than `maxWidth`. */
export function fitText(text: string, maxWidth: number, widthOf: WidthOf): string {
  if (widthOf(text) <= maxWidth) return text;
  const pieces = Array.from(graphemes.segment(text), ({ segment }) => segment);
  while (pieces.length > 0 && widthOf(`${pieces.join('')}…`) > maxWidth) pieces.pop();
  return `${pieces.join('').trimEnd()}…`;
}

/** The text between consecutive UAX #14 break opportunities, each with the spaces that follow it. */
function breakablePieces(text: string): string[] {
  const breaker = new LineBreaker(text);
  const pieces: string[] = [];
  let start = 0;
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    if (next.position > start) pieces.push(text.slice(start, next.position));
    start = next.position;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

function breakBetweenGraphemes(word: string, maxWidth: number, widthOf: WidthOf): string[] {
  const parts: string[] = [];
  let part = '';
  for (const { segment } of graphemes.segment(word)) {
    if (part !== '' && widthOf(part + segment) > maxWidth) {
      parts.push(part);
      part = '';
    }
    part += segment;
  }
  parts.push(part);
  return parts;
}
