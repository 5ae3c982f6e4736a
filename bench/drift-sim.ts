// The 48-hour settlement drift simulation over many seeds (issue 12's proof; issue 43 adds the merchant's
// batch-recorded final orders, agreeing with the provider or not), figures printed:
//   node --import tsx bench/drift-sim.ts [--seeds 20] [--first 1] [--hours 48] [--orders 40]
// Needs a Postgres at TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
// Exit 1 when any seed shows a false drift or misses its planted one.
import { parseArgs } from 'node:util';
import { ORDER_KINDS, simulateDrift, type SimResult } from '../test/helpers/drift-sim.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    first: { type: 'string', default: '1' },
    hours: { type: 'string', default: '48' },
    orders: { type: 'string', default: '40' },
  },
});
const [seeds, first, hours, orders] = [values.seeds, values.first, values.hours, values.orders].map(Number);
const results: SimResult[] = [];
const started = Date.now();
for (let seed = first; seed < first + seeds; seed++) {
  const r = await simulateDrift({ seed, hours, orders });
  results.push(r);
  console.log(
    `seed ${seed}: ${r.windows} windows, ${r.timingItems} timing items, judged again ${r.rejudged}, false drifts ${r.falseDrifts.length}, ` +
      `orders ${ORDER_KINDS.map((k) => `${k} ${r.kinds[k]}`).join(' ')}, ` +
      `planted ${r.planted.currency} ${r.planted.delta} at ${r.planted.at.toISOString()}: ${r.plantedFound ? 'found once, exactly' : `NOT found (${JSON.stringify(r.plantedWindows)})`}` +
      (r.falseDrifts.length ? ` false: ${JSON.stringify(r.falseDrifts)}` : ''),
  );
}
const sum = (f: (r: SimResult) => number) => results.reduce((n, r) => n + f(r), 0);
console.log(
  `\nseeds ${results.length} (${first}..${first + seeds - 1}), ${hours} h each, ${orders} orders each: ` +
    `windows ${sum((r) => r.windows)}, timing items ${sum((r) => r.timingItems)}, judged again ${sum((r) => r.rejudged)}, ` +
    `false drifts ${sum((r) => r.falseDrifts.length)}, ` +
    `planted drifts found ${sum((r) => (r.plantedFound ? 1 : 0))} of ${results.length} (${Math.round((Date.now() - started) / 1000)} s)\n` +
    `orders by kind: ${ORDER_KINDS.map((k) => `${k} ${sum((r) => r.kinds[k])}`).join(', ')}`,
);
recordResult('drift-sim', {
  command: `node --import tsx bench/drift-sim.ts ${process.argv.slice(2).join(' ')}`.trim(),
  machine: benchMachine('Postgres'),
  load: { end: loadAverages() },
  figures: {
    seeds: results.length,
    first_seed: first,
    hours,
    orders,
    windows: sum((r) => r.windows),
    timing_items: sum((r) => r.timingItems),
    judged_again: sum((r) => r.rejudged),
    ...Object.fromEntries(ORDER_KINDS.map((k) => [`orders_${k.replace('-', '_')}`, sum((r) => r.kinds[k])])),
    false_drifts: sum((r) => r.falseDrifts.length),
    planted_found: sum((r) => (r.plantedFound ? 1 : 0)),
    seconds: Math.round((Date.now() - started) / 1000),
  },
});
process.exitCode = results.every((r) => r.falseDrifts.length === 0 && r.plantedFound) ? 0 : 1;
