import { dataView } from './font-data.ts';

const POSTSCRIPT_NAME_ID = 6;
const WINDOWS = 3;
const MACINTOSH = 1;
const ENGLISH_US = 0x409;

/**
 * The font's PostScript name from its `name` table: the Windows record (US English first), else
 * the Macintosh one; null when there is neither.
 */
export function readPostScriptName(name: Uint8Array): string | null {
  const view = dataView(name);
  if (name.byteLength < 6 || 6 + view.getUint16(2) * 12 > name.byteLength)
    throw new Error('TrueType name table is truncated');
  const count = view.getUint16(2);
  const strings = view.getUint16(4);
  let best: { rank: number; platform: number; offset: number; length: number } | undefined;
  for (let index = 0; index < count; index += 1) {
    const record = 6 + index * 12;
    if (view.getUint16(record + 6) !== POSTSCRIPT_NAME_ID) continue;
    const platform = view.getUint16(record);
    const rank =
      platform === WINDOWS ? (view.getUint16(record + 4) === ENGLISH_US ? 0 : 1) : platform === MACINTOSH ? 2 : -1;
    if (rank < 0 || (best && best.rank <= rank)) continue;
    best = { rank, platform, offset: strings + view.getUint16(record + 10), length: view.getUint16(record + 8) };
  }
  if (!best || best.offset + best.length > name.byteLength) return null;
  let text = '';
  if (best.platform === WINDOWS) {
    for (let index = 0; index + 1 < best.length; index += 2)
      text += String.fromCharCode(view.getUint16(best.offset + index));
  } else {
    // PostScript names are printable ASCII, which Mac Roman shares.
    for (let index = 0; index < best.length; index += 1)
      text += String.fromCharCode(view.getUint8(best.offset + index));
  }
  return text;
}
