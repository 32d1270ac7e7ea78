import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessLogFormat } from '#lib/api-construct.ts';

/**
 * The Logs Insights queries in bench/README.md, checked offline against the log lines they read:
 * Lambda's JSON platform lines (a committed sample of real `platform.*` events, which
 * `SystemLogLevel` INFO keeps) and the HTTP API access log lines the stage writes (built from the
 * format the stack deploys). Every field a query names must be in the lines it runs on, and the
 * queries' commands are Logs Insights commands, so a renamed field or a typo fails here, not in
 * production at night.
 */

const readme = readFileSync(new URL('../../bench/README.md', import.meta.url), 'utf8');
/** The contents of the README's fenced blocks, in order. */
function fencedBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let open: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      if (open) blocks.push(open.join('\n').trim());
      open = open ? undefined : [];
    } else open?.push(line);
  }
  return blocks;
}

const queries = fencedBlocks(readme).filter((block) => /^(filter|fields|stats)\b/.test(block));

const platformLines = readFileSync(new URL('./fixtures/lambda-platform-log-lines.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);

/** An access log line as API Gateway writes it: the deployed format with `$context` values filled in. */
const accessLine = JSON.parse(
  accessLogFormat
    .toString()
    .replace(/\$context\.[A-Za-z.]+/g, (variable) => (variable.includes('Latency') ? '12' : 'x')),
) as Record<string, unknown>;

const COMMANDS = new Set(['filter', 'fields', 'stats', 'sort', 'limit', 'parse', 'display', 'dedup']);
const FUNCTIONS = /^(coalesce|ispresent|count|pct|max|min|avg|sum|earliest|latest|as|by|or|and|not|desc|asc|in|like)$/;
/** Names Logs Insights itself provides, and aliases a query defines with `as`. */
const builtIn = (name: string) => name.startsWith('@');

function fieldsOf(query: string): string[] {
  const aliases = new Set([...query.matchAll(/\bas\s+([A-Za-z_]\w*)/g)].map((match) => match[1]!));
  const withoutStrings = query.replace(/"[^"]*"/g, '""');
  const backticked = [...withoutStrings.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  const bare = [...withoutStrings.replace(/`[^`]+`/g, '').matchAll(/(@?[A-Za-z_][\w.]*)/g)].map((match) => match[1]!);
  return [...backticked, ...bare].filter(
    (name) => !builtIn(name) && !COMMANDS.has(name) && !FUNCTIONS.test(name) && !aliases.has(name),
  );
}

function hasPath(line: Record<string, unknown>, path: string): boolean {
  let node: unknown = line;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

describe('the Logs Insights queries of bench/README.md', () => {
  it('are found: two on the function logs, two on the access log', () => {
    expect(queries).toHaveLength(4);
  });

  it('use only Logs Insights commands, one per pipe stage', () => {
    for (const query of queries) {
      for (const stage of query.split(/\n\s*\|/)) {
        expect(COMMANDS.has(stage.trim().split(/\s+/)[0]!), stage).toBe(true);
      }
    }
  });

  it.each(queries.map((query) => [query.split('\n')[0], query] as const))(
    'name only fields the lines they read have: %s',
    (_first, query) => {
      const onFunctionLogs = query.includes('platform.report');
      const lines = onFunctionLogs ? platformLines : [accessLine];
      for (const field of fieldsOf(query)) {
        expect(
          lines.some((line) => hasPath(line, field)),
          `${field} in ${onFunctionLogs ? 'the platform lines' : 'the access log line'}`,
        ).toBe(true);
      }
    },
  );

  it('see a cold start in the platform lines: a report with an init duration', () => {
    const reports = platformLines.filter((line) => line.type === 'platform.report');
    expect(reports.filter((line) => hasPath(line, 'record.metrics.initDurationMs'))).toHaveLength(1);
  });
});
