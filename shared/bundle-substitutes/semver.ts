/**
 * Stands in for `semver` in the Lambda bundles (lib/bundling.ts aliases it): Powertools Tracer's
 * X-Ray SDK and its cls-hooked only ever ask `gte` of plain versions (Node's, the AWS SDK v2's).
 * semver was 29 KB of every bundle. Anything but `major.minor.patch` fails loudly.
 */
function parts(version: string): [number, number, number] {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!match) throw new Error(`semver stand-in: not a plain version: ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function gte(version: string, than: string): boolean {
  const [a, b] = [parts(version), parts(than)];
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index]! > b[index]!;
  return true;
}

export default { gte };
