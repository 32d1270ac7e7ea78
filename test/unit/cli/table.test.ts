import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatTable } from '#cli/table.ts';

describe('formatTable', () => {
  it('lines columns up by terminal width, CJK names taking two columns a character', () => {
    const table = formatTable(
      [
        { id: 'u1', name: '山田 太郎', city: 'Tokyo' },
        { id: 'u2', name: 'Ada Lovelace', city: 'London' },
        { id: 'u3', name: '김민준', city: 'Seoul' },
      ],
      ['id', 'name', 'city'],
    );
    const lines = table.split('\n');
    const cityColumn = (line: string) => stringWidth(line.slice(0, line.lastIndexOf(' ') + 1));

    expect(lines[0]).toMatch(/^id\s+name\s+city$/);
    expect(new Set(lines.filter((_, index) => index !== 1).map(cityColumn)).size).toBe(1);
  });

  it('cuts a long cell between graphemes and marks the cut', () => {
    const [, , row] = formatTable([{ name: '👩‍👩‍👧 family 名前名前名前' }], ['name'], 8).split('\n');

    expect(row!.endsWith('…')).toBe(true);
    expect(stringWidth(row!)).toBeLessThanOrEqual(8);
    expect(row!.startsWith('👩‍👩‍👧')).toBe(true);
  });
});
