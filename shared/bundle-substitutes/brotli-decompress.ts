/**
 * Stands in for `brotli/decompress.js` in the Lambda bundles (lib/bundling.ts aliases it): fontkit
 * needs it only to read WOFF2 files, and the reports ship TrueType files. The decoder's tables were
 * 475 KB of the worker's bundle. Fails loudly if a WOFF2 font is ever read.
 */
export default function decompress(): never {
  throw new Error('WOFF2 (brotli) font decoding is not part of this bundle');
}
