import { describe, expect, it } from 'vitest';
import { fitText, wrapText } from '#shared/adapters/pdf/line-breaking.ts';

/** Every grapheme 1 pt wide: widths are grapheme counts. */
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const widthOf = (text: string): number => Array.from(graphemes.segment(text)).length;

describe('wrapText', () => {
  it('breaks at spaces, filling each line', () => {
    expect(wrapText('the quick brown fox jumps', 10, widthOf)).toEqual(['the quick', 'brown fox', 'jumps']);
  });

  it('keeps newline-separated paragraphs on their own lines', () => {
    expect(wrapText('first line\nsecond', 20, widthOf)).toEqual(['first line', 'second']);
  });

  it('breaks a word wider than the line into pieces', () => {
    expect(wrapText('ab abcdefghijkl', 5, widthOf)).toEqual(['ab', 'abcde', 'fghij', 'kl']);
  });

  it('breaks a hyphenated name after a hyphen, never inside one of its parts', () => {
    expect(wrapText('Rodenegg-Trostburg-Überetsch', 20, widthOf)).toEqual(['Rodenegg-Trostburg-', 'Überetsch']);
    expect(wrapText('von Rodenegg-Trostburg', 12, widthOf)).toEqual(['von', 'Rodenegg-', 'Trostburg']);
  });

  it('breaks between CJK ideographs, but never before closing punctuation', () => {
    expect(wrapText('北京市朝阳区建国路', 3, widthOf)).toEqual(['北京市', '朝阳区', '建国路']);
    const lines = wrapText('北京市。朝阳区、建国路', 3, widthOf);
    expect(lines.join('')).toBe('北京市。朝阳区、建国路');
    for (const line of lines) expect(line).not.toMatch(/^[。、]/u);
  });

  it('breaks Korean at spaces and, as UAX #14 allows, between Hangul syllables', () => {
    expect(wrapText('서울특별시 중구 세종대로', 6, widthOf)).toEqual(['서울특별시', '중구 세종대', '로']);
  });

  it('breaks a word wider than the line between graphemes, never between a letter and its accent', () => {
    const word = 'e\u0301'.repeat(5); // é as e + combining acute, five times

    const lines = wrapText(word, 2, widthOf);

    expect(lines).toEqual(['e\u0301e\u0301', 'e\u0301e\u0301', 'e\u0301']);
  });

  it('does not break inside a word that fits on a line of its own', () => {
    expect(wrapText('Maximiliane Hohenfreyberg', 14, widthOf)).toEqual(['Maximiliane', 'Hohenfreyberg']);
  });

  it('gives one empty line for empty text', () => {
    expect(wrapText('', 10, widthOf)).toEqual(['']);
  });
});

describe('fitText', () => {
  it('leaves text that fits alone', () => {
    expect(fitText('short', 10, widthOf)).toBe('short');
  });

  it('cuts text that does not fit and ends it with an ellipsis', () => {
    expect(fitText('Northwind Sports Club', 10, widthOf)).toBe('Northwind…');
  });
});
