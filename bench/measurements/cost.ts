import { single, type Row } from '#bench/report.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { idleCost } from '#scripts/cost/idle-cost.ts';
import { readPriceTable } from '#scripts/cost/price-table.ts';
import { synthesizeStage } from '#scripts/cost/stage-template.ts';

/**
 * 15. Dollars, at the prices of docs/cost.md. An idle stage: the monthly cost of what its
 * synthesized template keeps running with no traffic (alarm metrics, the dashboard, keys, schedules,
 * SQS pollers; `npm run cost` shows the items), with the default settings at most $8. `stage=prod`
 * is reported without a budget: its edge (a WAF web ACL and its rules, the origin secret) is a
 * choice that costs $11.40 a month on its own.
 */
/** The idle budget of the default settings (docs/cost.md). */
const IDLE_STAGE_MAX_USD = 8;

export default {
  title: '15 cost',
  async run(context) {
    const table = readPriceTable();
    const rows: Row[] = [];
    for (const [name, settings, budgeted] of [
      ['default settings', {}, true],
      ['stage=prod', { stage: 'prod' }, false],
    ] as const) {
      context.log(`cost: synthesizing the stack (${name})`);
      const cost = idleCost(synthesizeStage(settings), table);
      const largest = [...cost.items].sort((a, b) => b.monthlyUsd - a.monthlyUsd).slice(0, 3);
      rows.push({
        measurement: this.title,
        subject: `idle stage a month, ${name}`,
        unit: 'USD',
        value: single(cost.monthlyUsd),
        ...(budgeted ? { budget: { on: 'median' as const, max: IDLE_STAGE_MAX_USD } } : {}),
        note: `largest: ${largest.map((item) => `${item.item} $${item.monthlyUsd.toFixed(2)}`).join(', ')}`,
      });
    }
    return rows;
  },
} satisfies Measurement;
