/**
 * Stands in for `pako` in the Lambda bundles (lib/bundling.ts aliases it): pdf-lib, its one user
 * there, only deflates when it writes (its parser inflates with a decoder of its own), so the
 * inflate half of pako (18 KB of the worker's bundle) is left out. The deflate is pako's own,
 * byte for byte (test/infra/lambda-bundles.test.ts renders from a bundle and compares).
 */
// By file path (a dependency's file, not a module of ours): the alias would turn any `pako/...`
// specifier into a path inside this file.
/* eslint-disable no-restricted-imports -- a dependency's file, not a module of ours */
// @ts-expect-error -- pako 1 ships no types; pdf-lib calls deflate(Uint8Array) and gets a Uint8Array.
import { deflate as pakoDeflate } from '../../node_modules/pako/lib/deflate.js';
/* eslint-enable no-restricted-imports */

const deflate = pakoDeflate as (data: Uint8Array) => Uint8Array;

function inflate(): never {
  throw new Error('pako inflate is not part of this bundle');
}

export { deflate, inflate };
export default { deflate, inflate };
