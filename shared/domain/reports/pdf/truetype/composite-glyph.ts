import { dataView } from './font-data.ts';

/** A component of a composite glyph: the glyph it draws and where in the glyph data that id is stored. */
export interface ComponentReference {
  glyphId: number;
  offset: number;
}

const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;
const GLYPH_HEADER_SIZE = 10;

/** The components of a composite glyph's `glyf` data; none for a simple or empty glyph. */
export function componentReferences(glyph: Uint8Array): ComponentReference[] {
  if (glyph.byteLength < GLYPH_HEADER_SIZE) return [];
  const view = dataView(glyph);
  if (view.getInt16(0) >= 0) return [];
  const components: ComponentReference[] = [];
  let offset = GLYPH_HEADER_SIZE;
  let flags: number;
  do {
    if (offset + 4 > glyph.byteLength) throw new Error('TrueType composite glyph is truncated');
    flags = view.getUint16(offset);
    components.push({ glyphId: view.getUint16(offset + 2), offset: offset + 2 });
    offset += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
    if (flags & WE_HAVE_A_SCALE) offset += 2;
    else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) offset += 4;
    else if (flags & WE_HAVE_A_TWO_BY_TWO) offset += 8;
  } while (flags & MORE_COMPONENTS);
  return components;
}
