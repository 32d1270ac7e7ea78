import type { SourceMap } from 'node:module';

/** A position in a bundle as stack traces print it, e.g. `/var/task/index.js:1:23456`. */
const BUNDLE_POSITION = /(?:[^\s()"']*\/)?index\.js:(\d+):(\d+)/g;

/**
 * Rewrites every bundle position found in `text` (a stack trace, or log lines carrying one) to
 * the source file, line and column it came from, using the bundle's source map. Positions the map
 * does not cover are left as they are. Source paths are shown from the repository root: the map
 * names them relative to the bundle's folder (`../../shared/...` in `cdk.out/asset.<hash>/`).
 * @param sourceMap the parsed `index.js.map` deployed beside the bundle
 */
export function decodeStackTrace(text: string, sourceMap: SourceMap): string {
  return text.replace(BUNDLE_POSITION, (position, line: string, column: string) => {
    // Stack traces count lines and columns from 1; source maps from 0.
    const entry = sourceMap.findEntry(Number(line) - 1, Number(column) - 1) as Partial<{
      originalSource: string;
      originalLine: number;
      originalColumn: number;
    }>;
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined)
      return position;
    const source = entry.originalSource.replace(/^(?:\.\.\/)+/, '');
    return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
