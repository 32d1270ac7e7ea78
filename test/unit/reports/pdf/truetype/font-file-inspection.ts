import fontkit from '@pdf-lib/fontkit';
import { loadReportFonts } from '../../../../../shared/domain/reports/pdf/report-fonts.ts';

/**
 * Reads and patches TrueType files for the tests, written apart from the code under test so that
 * it can check that code, with fontkit as the reference reader.
 */

export type FontkitFont = ReturnType<typeof fontkit.create>;

export const REPORT_FACES = Object.entries(loadReportFonts()) as [string, Uint8Array][];

export function fontkitFont(bytes: Uint8Array): FontkitFont {
  return fontkit.create(Buffer.from(bytes));
}

export interface TableRecord {
  tag: string;
  checksum: number;
  offset: number;
  length: number;
}

export function tableRecords(bytes: Uint8Array): TableRecord[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: view.getUint16(4) }, (_, index) => {
    const record = 12 + index * 16;
    return {
      tag: Buffer.from(bytes.subarray(record, record + 4)).toString('latin1'),
      checksum: view.getUint32(record + 4),
      offset: view.getUint32(record + 8),
      length: view.getUint32(record + 12),
    };
  });
}

/** A view of table `tag` of the font file `bytes`. */
export function tableView(bytes: Uint8Array, tag: string): DataView {
  const record = tableRecords(bytes).find((candidate) => candidate.tag === tag);
  if (!record) throw new Error(`no ${tag} table`);
  return new DataView(bytes.buffer, bytes.byteOffset + record.offset, record.length);
}

/** The bytes of table `tag` of the font file `bytes`. */
export function tableBytes(bytes: Uint8Array, tag: string): Uint8Array {
  const table = tableView(bytes, tag);
  return new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
}

/** A copy of the font file `bytes` with table `tag` changed by `patch`. */
export function patched(bytes: Uint8Array, tag: string, patch: (table: DataView) => void): Uint8Array {
  const copy = new Uint8Array(bytes);
  patch(tableView(copy, tag));
  return copy;
}

/** Sum of the big-endian 32-bit words of `bytes`, zero padded to a multiple of 4, modulo 2^32. */
export function checksum(bytes: Uint8Array): number {
  const words = new Uint8Array((bytes.byteLength + 3) & ~3);
  words.set(bytes);
  const view = new DataView(words.buffer);
  let sum = 0;
  for (let offset = 0; offset < words.byteLength; offset += 4) sum = (sum + view.getUint32(offset)) >>> 0;
  return sum;
}

/** Advance width and left side bearing of `glyphId` in the font file `bytes`, from its hhea and hmtx. */
export function horizontalMetrics(bytes: Uint8Array, glyphId: number): { advance: number; leftSideBearing: number } {
  const metrics = tableView(bytes, 'hhea').getUint16(34);
  const hmtx = tableView(bytes, 'hmtx');
  const record = Math.min(glyphId, metrics - 1) * 4;
  const leftSideBearing =
    glyphId < metrics ? hmtx.getInt16(record + 2) : hmtx.getInt16(metrics * 4 + (glyphId - metrics) * 2);
  return { advance: hmtx.getUint16(record), leftSideBearing };
}

/** The glyph data offsets of the font file `bytes`, from its head and loca. */
export function glyphOffsets(bytes: Uint8Array): { long: boolean; offsets: number[] } {
  const long = tableView(bytes, 'head').getInt16(50) === 1;
  const loca = tableView(bytes, 'loca');
  const count = loca.byteLength / (long ? 4 : 2);
  const offsets = Array.from({ length: count }, (_, index) =>
    long ? loca.getUint32(index * 4) : loca.getUint16(index * 2) * 2,
  );
  return { long, offsets };
}

/** The glyf data of glyph `glyphId` of the font file `bytes`, as its loca entries bound it. */
export function glyphBytes(bytes: Uint8Array, glyphId: number): Uint8Array {
  const { offsets } = glyphOffsets(bytes);
  return tableBytes(bytes, 'glyf').subarray(offsets[glyphId], offsets[glyphId + 1]);
}

/** The font file fontkit's own subsetter writes for `glyphIds`: the reference for which glyphs a subset needs. */
export function fontkitSubset(font: FontkitFont, glyphIds: number[]): Promise<Uint8Array> {
  const subset = font.createSubset();
  for (const glyphId of glyphIds) subset.includeGlyph(glyphId);
  return new Promise((resolve) => {
    const parts: Uint8Array[] = [];
    subset
      .encodeStream()
      .on('data', (part) => parts.push(part))
      .on('end', () => resolve(Buffer.concat(parts)));
  });
}

/** Whether glyph `glyphId` of the font file `bytes` is a composite (a negative number of contours). */
export function isCompositeGlyph(bytes: Uint8Array, glyphId: number): boolean {
  const { offsets } = glyphOffsets(bytes);
  const glyf = tableView(bytes, 'glyf');
  return offsets[glyphId + 1]! > offsets[glyphId]! && glyf.getInt16(offsets[glyphId]!) < 0;
}
