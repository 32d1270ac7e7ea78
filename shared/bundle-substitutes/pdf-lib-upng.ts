/**
 * Stands in for `@pdf-lib/upng` (PNG decoding) in the Lambda bundles (lib/bundling.ts aliases it):
 * reports contain no images. Fails loudly if a PNG is ever embedded.
 */
const notBundled = (): never => {
  throw new Error('PNG embedding is not part of this bundle');
};

export default { decode: notBundled, toRGBA8: notBundled };
