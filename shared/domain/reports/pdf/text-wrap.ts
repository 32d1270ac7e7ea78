/** Width in points of a piece of one-line text. */
export type WidthOf = (text: string) => number;

/**
 * Breaks one paragraph into lines no wider than `maxWidth`: at spaces where it can, inside a word
 * only when the word alone is too wide (long e-mail addresses, ids, names without spaces).
 * Widths add up piece by piece because glyphs are drawn without kerning.
 */
export function wrapParagraph(text: string, maxWidth: number, widthOf: WidthOf): string[] {
  const words = text.split(' ').filter((word) => word !== '');
  if (words.length === 0) return [''];
  const spaceWidth = widthOf(' ');
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (const word of words) {
    const wordWidth = widthOf(word);
    if (line !== '' && lineWidth + spaceWidth + wordWidth <= maxWidth) {
      line += ` ${word}`;
      lineWidth += spaceWidth + wordWidth;
      continue;
    }
    if (line !== '') lines.push(line);
    if (wordWidth <= maxWidth) {
      line = word;
      lineWidth = wordWidth;
      continue;
    }
    const pieces = breakWord(word, maxWidth, widthOf);
    lines.push(...pieces.slice(0, -1));
    line = pieces.at(-1) ?? '';
    lineWidth = widthOf(line);
  }
  lines.push(line);
  return lines;
}

/** Wraps each newline-separated paragraph of `text`. */
export function wrapText(text: string, maxWidth: number, widthOf: WidthOf): string[] {
  return text.split('\n').flatMap((paragraph) => wrapParagraph(paragraph, maxWidth, widthOf));
}

/** `text`, cut and ended with an ellipsis if it is wider than `maxWidth`. */
export function fitText(text: string, maxWidth: number, widthOf: WidthOf): string {
  if (widthOf(text) <= maxWidth) return text;
  const characters = Array.from(text);
  while (characters.length > 0 && widthOf(`${characters.join('')}…`) > maxWidth) characters.pop();
  return `${characters.join('').trimEnd()}…`;
}

function breakWord(word: string, maxWidth: number, widthOf: WidthOf): string[] {
  const pieces: string[] = [];
  let piece = '';
  let pieceWidth = 0;
  for (const character of word) {
    const characterWidth = widthOf(character);
    if (piece !== '' && pieceWidth + characterWidth > maxWidth) {
      pieces.push(piece);
      piece = '';
      pieceWidth = 0;
    }
    piece += character;
    pieceWidth += characterWidth;
  }
  pieces.push(piece);
  return pieces;
}
