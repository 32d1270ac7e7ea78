import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '#lib/repo-root.ts';

/**
 * The prices, the idle rules and the assumptions live as tables in docs/cost.md, between
 * `<!-- cost:<name>:start -->` and `<!-- cost:<name>:end -->`: the page a reader checks is the data
 * the scripts use, so updating a price or pricing a new resource type is editing a row there.
 */

export const COST_PAGE = 'docs/cost.md';

/** One price: `usd` for `per` units of `unit` (`0.20` for `1,000,000 requests`). */
export interface Price {
  readonly usd: number;
  readonly per: number;
  readonly unit: string;
}

/** A resource type of the template, what is counted on each resource of that type, and the price it is counted at. */
export interface IdleRule {
  readonly resourceType: string;
  readonly counter: string;
  readonly price: string;
  readonly item: string;
}

export interface PriceTable {
  /** When the prices were read, and from where (the page's header lines). */
  readonly region: string;
  readonly prices: ReadonlyMap<string, Price>;
  readonly idleRules: readonly IdleRule[];
  readonly assumptions: ReadonlyMap<string, number>;
}

/** USD for `quantity` units of the named price. */
export function costOf(table: PriceTable, priceKey: string, quantity: number): number {
  const price = table.prices.get(priceKey);
  if (!price) throw new Error(`${COST_PAGE} has no price ${priceKey}`);
  return (quantity * price.usd) / price.per;
}

export function assumption(table: PriceTable, key: string): number {
  const value = table.assumptions.get(key);
  if (value === undefined) throw new Error(`${COST_PAGE} has no assumption ${key}`);
  return value;
}

export function readPriceTable(file = path.join(repoRoot, COST_PAGE)): PriceTable {
  return parsePriceTable(readFileSync(file, 'utf8'));
}

export function parsePriceTable(page: string): PriceTable {
  const region = /^Region: `([a-z0-9-]+)`/m.exec(page)?.[1];
  if (!region) throw new Error(`${COST_PAGE} names no region (a line "Region: \`us-east-1\`")`);
  const prices = new Map<string, Price>();
  for (const { key, usd, per } of tableRows(page, 'prices', ['key', 'usd', 'per'])) {
    const quantity = /^([\d,]+)\s+(.+)$/.exec(per);
    prices.set(unquoted(key), {
      usd: numberIn(usd, key),
      per: quantity?.[1] ? numberIn(quantity[1], key) : 1,
      unit: quantity?.[2] ?? per,
    });
  }
  const idleRules = tableRows(page, 'idle', ['resourceType', 'counter', 'price', 'item']).map((row) => ({
    ...row,
    resourceType: unquoted(row.resourceType),
    price: unquoted(row.price),
  }));
  for (const rule of idleRules) {
    if (!prices.has(rule.price))
      throw new Error(`${COST_PAGE}: idle rule ${rule.item} names no known price ${rule.price}`);
  }
  const assumptions = new Map(
    tableRows(page, 'assumptions', ['key', 'value']).map(
      ({ key, value }) => [unquoted(key), numberIn(value, key)] as const,
    ),
  );
  return { region, prices, idleRules, assumptions };
}

/** The body rows of the markdown table between the named markers, their first cells named by `columns`. */
function tableRows<Column extends string>(
  page: string,
  name: string,
  columns: readonly Column[],
): Array<Record<Column, string>> {
  const start = page.indexOf(`<!-- cost:${name}:start -->`);
  const end = page.indexOf(`<!-- cost:${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`${COST_PAGE} has no cost:${name} table`);
  const lines = page
    .slice(start, end)
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .slice(2); // the header and its separator
  return lines.map((line) => {
    const cells = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    if (cells.length < columns.length)
      throw new Error(`${COST_PAGE}: a cost:${name} row has fewer than ${columns.length} cells`);
    return Object.fromEntries(columns.map((column, index) => [column, cells[index]])) as Record<Column, string>;
  });
}

const unquoted = (cell: string): string => cell.replace(/^`|`$/g, '');

function numberIn(cell: string, key: string): number {
  const value = Number(cell.replace(/[$,]/g, ''));
  if (!Number.isFinite(value)) throw new Error(`${COST_PAGE}: ${key} has no number (${cell})`);
  return value;
}
