import { describe, expect, it } from 'vitest';
import { fitText, wrapText } from '../../../../shared/domain/reports/pdf/text-wrap.ts';

/** Every character 1 pt wide: widths are character counts. */
const widthOf = (text: string): number => Array.from(text).length;

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
