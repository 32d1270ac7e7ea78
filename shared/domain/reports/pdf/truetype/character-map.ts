import { dataView } from './font-data.ts';

/** The glyph id a font draws a Unicode code point with; 0 (`.notdef`) when it has none. */
export type CharacterMap = (codePoint: number) => number;

/**
 * Unicode encodings in order of preference, as platform/encoding ids: Windows full repertoire,
 * Windows BMP, then the Unicode platform's.
 */
const PREFERRED_ENCODINGS = ['3/10', '3/1', '0/6', '0/4', '0/3', '0/2', '0/1', '0/0'];

/** The Unicode mapping of a `cmap` table, read from its most preferred format 4 or 12 subtable. */
export function readCharacterMap(cmap: Uint8Array): CharacterMap {
  const view = dataView(cmap);
  const numTables = view.getUint16(2);
  if (4 + numTables * 8 > cmap.byteLength) throw new Error('TrueType cmap table is truncated');
  let best: { rank: number; offset: number; format: number } | undefined;
  for (let index = 0; index < numTables; index += 1) {
    const record = 4 + index * 8;
    const rank = PREFERRED_ENCODINGS.indexOf(`${view.getUint16(record)}/${view.getUint16(record + 2)}`);
    const offset = view.getUint32(record + 4);
    if (rank < 0 || (best && best.rank <= rank) || offset + 16 > cmap.byteLength) continue;
    const format = view.getUint16(offset);
    if (format === 4 || format === 12) best = { rank, offset, format };
  }
  if (!best) throw new Error('TrueType font has no Unicode cmap subtable in format 4 or 12');
  // Bounded by the cmap table rather than the subtable's length field, which large format 4
  // subtables overflow.
  const subtable = cmap.subarray(best.offset);
  return best.format === 4 ? segmentMapping(subtable) : segmentedCoverage(subtable);
}

/** Format 4: segments of consecutive BMP code points, each mapped by a delta or a glyph id array. */
function segmentMapping(subtable: Uint8Array): CharacterMap {
  const view = dataView(subtable);
  const segCountX2 = view.getUint16(6);
  const endCodes = 14;
  const startCodes = endCodes + segCountX2 + 2;
  const idDeltas = startCodes + segCountX2;
  const idRangeOffsets = idDeltas + segCountX2;
  if (idRangeOffsets + segCountX2 > subtable.byteLength)
    throw new Error('TrueType cmap format 4 subtable is truncated');
  return (codePoint) => {
    if (codePoint < 0 || codePoint > 0xffff) return 0;
    let low = 0;
    let high = segCountX2 / 2 - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const segment = middle * 2;
      if (codePoint > view.getUint16(endCodes + segment)) {
        low = middle + 1;
        continue;
      }
      const start = view.getUint16(startCodes + segment);
      if (codePoint < start) {
        high = middle - 1;
        continue;
      }
      const delta = view.getUint16(idDeltas + segment);
      const rangeOffset = view.getUint16(idRangeOffsets + segment);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      // idRangeOffset counts bytes from its own position to the segment's slice of the glyph id array.
      const address = idRangeOffsets + segment + rangeOffset + (codePoint - start) * 2;
      if (address + 2 > subtable.byteLength) return 0;
      const glyphId = view.getUint16(address);
      return glyphId === 0 ? 0 : (glyphId + delta) & 0xffff;
    }
    return 0;
  };
}

/** Format 12: groups of consecutive code points mapped to consecutive glyph ids. */
function segmentedCoverage(subtable: Uint8Array): CharacterMap {
  const view = dataView(subtable);
  const numGroups = view.getUint32(12);
  const groups = 16;
  if (groups + numGroups * 12 > subtable.byteLength) throw new Error('TrueType cmap format 12 subtable is truncated');
  return (codePoint) => {
    let low = 0;
    let high = numGroups - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const group = groups + middle * 12;
      if (codePoint < view.getUint32(group)) high = middle - 1;
      else if (codePoint > view.getUint32(group + 4)) low = middle + 1;
      else return view.getUint32(group + 8) + (codePoint - view.getUint32(group));
    }
    return 0;
  };
}
