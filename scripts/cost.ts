import { parseArgs } from 'node:util';
import { idleCost, type IdleCost } from './cost/idle-cost.ts';
import { COST_PAGE, readPriceTable } from './cost/price-table.ts';
import { synthesizeStage } from './cost/stage-template.ts';

/**
 * `npm run cost [-- -c key=value ...]`: the monthly cost of an idle stage, item by item, from the
 * synthesized template at the prices of docs/cost.md. Without `-c` it shows the default settings
 * and `stage=prod`; with `-c` values, that one configuration.
 */

const { values } = parseArgs({ options: { context: { type: 'string', short: 'c', multiple: true } } });
const given = Object.fromEntries(
  (values.context ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`-c takes key=value, not ${pair}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
const configurations: Array<[string, Record<string, unknown>]> = values.context
  ? [[(values.context ?? []).join(' '), given]]
  : [
      ['default settings', {}],
      ['stage=prod', { stage: 'prod' }],
    ];

const table = readPriceTable();
for (const [name, context] of configurations) {
  process.stdout.write(`${render(name, idleCost(synthesizeStage(context), table))}\n`);
}
process.stdout.write(`Prices: ${table.region}, ${COST_PAGE}.\n`);

function render(name: string, cost: IdleCost): string {
  const rows = cost.items
    .filter((item) => item.quantity > 0)
    .map((item) => [
      item.item,
      `${item.resources} × ${item.resourceType}`,
      `${formatQuantity(item.quantity)} ${item.unit}`,
      `$${item.monthlyUsd.toFixed(2)}`,
    ]);
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column === 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  '),
  );
  return [
    `Idle stage, ${name}: $${cost.monthlyUsd.toFixed(2)} a month`,
    ...lines.map((line) => `  ${line}`),
    `  free while idle (billed by use or data kept): ${cost.unpricedTypes.join(', ')}`,
    '',
  ].join('\n');
}

function formatQuantity(quantity: number): string {
  return quantity >= 100 ? Math.round(quantity).toLocaleString('en-US') : String(Number(quantity.toPrecision(3)));
}
