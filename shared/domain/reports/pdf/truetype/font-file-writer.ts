import { dataView } from './font-data.ts';

const HEADER_SIZE = 12;
const RECORD_SIZE = 16;
/** What the whole file's checksum must come to once `head.checkSumAdjustment` is set. */
const FONT_CHECKSUM_TARGET = 0xb1b0afba;
const CHECKSUM_ADJUSTMENT_OFFSET = 8;

/**
 * A TrueType font file holding `tables`: the table directory sorted by tag, each table 4-byte
 * aligned and zero padded, each record's checksum and `head.checkSumAdjustment` set.
 */
export function writeFontFile(tables: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const sorted = [...tables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const directorySize = HEADER_SIZE + sorted.length * RECORD_SIZE;
  let size = directorySize;
  for (const [, data] of sorted) size += padded(data.byteLength);
  const file = new Uint8Array(size);
  const view = dataView(file);

  const entrySelector = Math.floor(Math.log2(Math.max(sorted.length, 1)));
  const searchRange = 2 ** entrySelector * RECORD_SIZE;
  view.setUint32(0, 0x00010000);
  view.setUint16(4, sorted.length);
  view.setUint16(6, searchRange);
  view.setUint16(8, entrySelector);
  view.setUint16(10, sorted.length * RECORD_SIZE - searchRange);

  let offset = directorySize;
  let headOffset: number | undefined;
  sorted.forEach(([tag, data], index) => {
    file.set(data, offset);
    if (tag === 'head') {
      headOffset = offset;
      view.setUint32(offset + CHECKSUM_ADJUSTMENT_OFFSET, 0);
    }
    const record = HEADER_SIZE + index * RECORD_SIZE;
    for (let char = 0; char < 4; char += 1) view.setUint8(record + char, tag.charCodeAt(char));
    view.setUint32(record + 4, checksum(view, offset, padded(data.byteLength)));
    view.setUint32(record + 8, offset);
    view.setUint32(record + 12, data.byteLength);
    offset += padded(data.byteLength);
  });
  if (headOffset !== undefined) {
    view.setUint32(headOffset + CHECKSUM_ADJUSTMENT_OFFSET, (FONT_CHECKSUM_TARGET - checksum(view, 0, size)) >>> 0);
  }
  return file;
}

function padded(length: number): number {
  return (length + 3) & ~3;
}

/** The sum of the big-endian 32-bit words in `length` bytes from `offset`, modulo 2^32. */
function checksum(view: DataView, offset: number, length: number): number {
  let sum = 0;
  for (let word = offset; word < offset + length; word += 4) sum = (sum + view.getUint32(word)) >>> 0;
  return sum;
}
