import { describe, expect, it } from 'vitest';
import { CSV_BYTE_ORDER_MARK, csvCell, csvFile, csvLine } from '#web/src/csv.ts';

/** A minimal RFC 4180 reader (quoted fields only where quoted): what a spreadsheet's import does. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      inQuotes = !inQuotes;
    } else if (inQuotes) {
      field += c;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  return rows;
}

describe('the dashboard’s CSV export', () => {
  it('quotes every text cell, doubles embedded quotes and keeps commas and line breaks inside the quotes', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', ''])).toBe(
      '"plain","a,b","say ""hi""","two\nlines","cr\r\nlf",""\r\n',
    );
    expect(parseCsv(csvLine(['say "hi"', 'two\nlines', 'cr\r\nlf', 'a,b']))).toEqual([
      ['say "hi"', 'two\nlines', 'cr\r\nlf', 'a,b'],
    ]);
  });

  it('writes real numbers and booleans bare, nothing for null, and objects as quoted JSON', () => {
    expect(csvLine([42, -1.5, 0, 12345678901234567890n, true, false, null, undefined, { status: 'Cleared' }])).toBe(
      '42,-1.5,0,12345678901234567890,true,false,,,"{""status"":""Cleared""}"\r\n',
    );
  });

  it('quotes numbers that are text: a string of digits, and NaN or Infinity', () => {
    expect(csvCell('42')).toBe('"42"');
    expect(csvCell('007')).toBe('"007"');
    expect(csvCell(Number.NaN)).toBe('"NaN"');
    expect(csvCell(Number.POSITIVE_INFINITY)).toBe('"Infinity"');
    expect(csvCell(Number.NEGATIVE_INFINITY)).toBe(`"'-Infinity"`);
    expect(csvCell('-1.5')).toBe(`"'-1.5"`);
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('=1+1')).toBe(`"'=1+1"`);
    expect(csvCell('+1 555')).toBe(`"'+1 555"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\t=1+1')).toBe(`"'\t=1+1"`);
    expect(csvCell('\tplain')).toBe(`"'\tplain"`);
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvCell({ '=x': 1 })).toBe(`"{""=x"":1}"`);
  });

  it('defuses a formula start after leading spaces', () => {
    expect(csvCell(' =1+1')).toBe(`"' =1+1"`);
    expect(csvCell('   @cmd')).toBe(`"'   @cmd"`);
    expect(csvCell(' \u00A0+1')).toBe(`"' \u00A0+1"`);
    expect(csvCell('\u3000=1+1')).toBe(`"'\u3000=1+1"`);
    expect(csvCell('\n-1')).toBe(`"'\n-1"`);
  });

  it('defuses the full-width and small forms of = + - @', () => {
    for (const start of ['＝', '＋', '－', '＠', '﹦', '﹢', '﹣', '﹫']) {
      expect(csvCell(`${start}1+1`)).toBe(`"'${start}1+1"`);
      expect(csvCell(` ${start}1+1`)).toBe(`"' ${start}1+1"`);
    }
  });

  it('leaves other starts alone: a ; is not a formula in itself, nor is a formula character later on', () => {
    expect(csvCell(';=1+1')).toBe('";=1+1"');
    expect(csvCell('a=1+1')).toBe('"a=1+1"');
    expect(csvCell('Jean-Luc')).toBe('"Jean-Luc"');
    expect(csvCell("'=already")).toBe(`"'=already"`);
    expect(csvCell('user@example.com')).toBe('"user@example.com"');
  });

  it('begins the file with a UTF-8 byte-order mark, and non-Latin names survive', () => {
    const lines = [csvLine(['first_name', 'last_name']), csvLine(['Ångström', 'כהן']), csvLine(['Zoë', '山田'])];
    const file = csvFile(lines);
    expect(CSV_BYTE_ORDER_MARK).toBe('\uFEFF');
    expect(file.startsWith('\uFEFF"first_name"')).toBe(true);

    const bytes = new TextEncoder().encode(file);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const decoded = new TextDecoder('utf-8').decode(bytes); // drops the byte-order mark, as spreadsheets do
    expect(parseCsv(decoded)).toEqual([
      ['first_name', 'last_name'],
      ['Ångström', 'כהן'],
      ['Zoë', '山田'],
    ]);
    expect(file.indexOf('\uFEFF', 1)).toBe(-1); // only at the start
  });
});
