import { dataView } from './font-data.ts';

/** A font's tables by tag, each a view into the font file's bytes. */
export type FontTables = ReadonlyMap<string, Uint8Array>;

const TRUETYPE_VERSIONS = new Set([0x00010000, 0x74727565 /* 'true', Apple */]);
const CFF_VERSION = 0x4f54544f; // 'OTTO'
const HEADER_SIZE = 12;
const RECORD_SIZE = 16;

/** The tables listed in a TrueType font's table directory. */
export function readTableDirectory(file: Uint8Array): FontTables {
  // A plain Uint8Array over the same memory: views of a Node Buffer are Buffers, whose `slice`
  // shares memory instead of copying.
  const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  if (bytes.byteLength < HEADER_SIZE) throw new Error('not a TrueType font: too short for a table directory');
  const view = dataView(bytes);
  const version = view.getUint32(0);
  if (version === CFF_VERSION) {
    throw new Error('OpenType fonts with CFF outlines (OTTO) are not supported, only TrueType outlines (glyf)');
  }
  if (!TRUETYPE_VERSIONS.has(version)) {
    throw new Error(`not a TrueType font: sfnt version 0x${version.toString(16).padStart(8, '0')}`);
  }
  const numTables = view.getUint16(4);
  if (HEADER_SIZE + numTables * RECORD_SIZE > bytes.byteLength)
    throw new Error('TrueType table directory runs past the end of the file');
  const tables = new Map<string, Uint8Array>();
  for (let index = 0; index < numTables; index += 1) {
    const record = HEADER_SIZE + index * RECORD_SIZE;
    const tag = readTag(view, record);
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    if (offset + length > bytes.byteLength) throw new Error(`TrueType table '${tag}' runs past the end of the file`);
    tables.set(tag, bytes.subarray(offset, offset + length));
  }
  return tables;
}

function readTag(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}
