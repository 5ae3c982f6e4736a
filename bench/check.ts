/**
 * Has the reconcile job's CPU crept up? (issue 42) Compares the latest run of bench/run.ts with the best
 * recorded on the same machine (CPU model, cores, memory, Node, database) for the same case (orders,
 * latency, concurrency, --cli), by the ratio job CPU per order / fetch-only client CPU per request.
 *
 *   npm run bench -- --orders 30000 --skip-baseline --skip-report && npm run bench:check [-- --tolerance 10]
 *
 * Exit 1 when the latest ratio is more than --tolerance % (default 10) above the best, else 0 (also when
 * there is nothing to compare with yet: the run becomes the reference). Not part of `npm test`: it reads
 * figures of a shared machine, and a loaded run's ratio can be high by itself; run the bench again
 * before believing a growth near the tolerance.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkCreep } from './lib/cpu-ratio.ts';
import { RESULTS_DIR, type BenchRecord } from './lib/record.ts';

const { values } = parseArgs({
  options: {
    file: { type: 'string', default: path.join(RESULTS_DIR, 'run.jsonl') },
    tolerance: { type: 'string', default: '10' },
  },
});
const tolerance = Number(values.tolerance);
if (!(tolerance >= 0)) throw new Error(`--tolerance: expected a percentage >= 0 (got ${values.tolerance})`);

const records = fs
  .readFileSync(values.file!, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as BenchRecord);
const check = checkCreep(records);

const describe = (r: BenchRecord, ratio: number): string => {
  const cpu = (r.figures.cpu_us_per_order ?? {}) as Record<string, number | null>;
  const client = [cpu.fetch_only_client_per_request, cpu.fetch_only_client_per_request_after].filter((x) => x != null).join(' / ');
  // After the job's start-up and warm-up (runs recorded since the bench splits them): what the steady state adds to the client.
  const steady = r.figures.job_steady_cpu_over_client_cpu;
  const after = typeof steady === 'number' ? `; ${steady.toFixed(2)} after warm-up (${cpu.job_steady} µs per order)` : '';
  return `${ratio.toFixed(2)} (job ${cpu.job} µs per order, client ${client} µs per request${after}; ${r.commit ?? 'no commit'}, ${r.at}, load ${JSON.stringify(r.load)})`;
};
const { latest, best, growth } = check;
process.stdout.write(`case: ${latest.command}\nmachine: ${JSON.stringify(latest.machine)}\n`);
process.stdout.write(`latest: ${describe(latest, check.latestRatio)}\n`);
if (check.latestProfiled)
  process.stdout.write('note: the latest run ran with BENCH_NODE_ARGS (a profiler?): its ratio is not comparable\n');
if (!best || growth === null) {
  process.stdout.write('best: none recorded for this case on this machine; this run is the reference\n');
} else {
  process.stdout.write(`best:   ${describe(best.record, best.ratio)}\n`);
  const pct = (growth * 100).toFixed(1);
  const verdict =
    growth * 100 > tolerance
      ? `GREW by ${pct} % (over the ${tolerance} % tolerance)`
      : `${growth > 0 ? '+' : ''}${pct} % (within ${tolerance} %)`;
  process.stdout.write(`job CPU per client request against the best: ${verdict}\n`);
  if (growth * 100 > tolerance) process.exitCode = 1;
}
