/**
 * The reconcile job's CPU by stage, from `--cpu-prof` profiles of bench runs (issue 42).
 *
 *   npm run build && BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof-now" BENCH_DATABASE_URL=... \
 *     npm run bench -- --orders 30000 --skip-baseline --skip-report
 *   node --import tsx bench/profile-stages.ts --run now,<job µs per order>,/tmp/prof-now/CPU.*.cpuprofile [--run ...]
 *
 * The profile holds the job process's main thread only (the bench's `--cpu-prof` child is the job; the
 * sandbox and the ceiling client are not profiled), so each stage's share of its busy samples is
 * turned into µs per order with the job's CPU per order that the same bench run printed (a sampled
 * share of a measured total: worker threads and GC helpers are in the total, spread pro rata).
 * One column per --run, in the order given; a markdown table on stdout.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { STAGES, stagesOf, type CpuProfile } from './lib/profile-stages.ts';

const { values } = parseArgs({ options: { run: { type: 'string', multiple: true, default: [] } } });
const runs = values.run!.map((spec) => {
  const [label, cpu, ...file] = spec.split(',');
  const usPerOrder = Number(cpu);
  if (!label || !(usPerOrder > 0) || file.length === 0)
    throw new Error(`--run ${spec}: expected label,<job CPU µs per order>,<file.cpuprofile>`);
  const table = stagesOf(JSON.parse(fs.readFileSync(file.join(','), 'utf8')) as CpuProfile);
  return { label, usPerOrder, table };
});
if (runs.length === 0) throw new Error('give at least one --run label,<job CPU µs per order>,<file.cpuprofile>');

const header = ['stage', ...runs.map((r) => `${r.label}: µs/order (share)`)];
const rows = STAGES.map((stage) => [
  stage,
  ...runs.map(({ usPerOrder, table }) => {
    const share = (table.samples.get(stage) ?? 0) / table.busy;
    return `${(share * usPerOrder).toFixed(1)} (${(share * 100).toFixed(1)} %)`;
  }),
]);
rows.push(['**job CPU per order**', ...runs.map((r) => `**${r.usPerOrder}** (${r.table.busy} busy samples, ${r.table.idle} idle)`)]);
const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
process.stdout.write(`${[line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')}\n`);
