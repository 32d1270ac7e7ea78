/** A big-endian reader over `bytes`, as all numbers in a TrueType file are. */
export function dataView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
