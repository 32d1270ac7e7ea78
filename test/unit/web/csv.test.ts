import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../../web/src/csv.ts';

describe('the dashboard’s CSV export', () => {
  it('quotes cells holding commas, quotes or line breaks (RFC 4180) and ends lines with CRLF', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines'])).toBe('plain,"a,b","say ""hi""","two\nlines"\r\n');
  });

  it('writes numbers and booleans as they are, nothing for null, and objects as JSON', () => {
    expect(csvLine([42, -1.5, true, null, undefined, { status: 'Cleared' }])).toBe(
      '42,-1.5,true,,,"{""status"":""Cleared""}"\r\n',
    );
  });

  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('+1 555')).toBe("'+1 555");
    expect(csvCell('@user')).toBe("'@user");
  });
});
