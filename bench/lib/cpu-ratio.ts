/**
 * The reconcile bench's creep figure (issue 42): the job's CPU per order over the fetch-only client's
 * CPU per request, measured in the same run. Both are CPU time, and both move with the machine's load
 * and kind of core, so their ratio says what the job adds to the HTTP client it wraps far more steadily
 * than either figure alone or any wall time. `npm run bench:check` compares the latest run with the best
 * recorded on the same machine for the same case.
 */
import type { BenchMachine, BenchRecord } from './record.ts';

/** The figures of bench/results/run.jsonl this reads (older runs lack the newer ones). */
interface RunFigures {
  orders?: number;
  latency_ms?: number;
  concurrency?: number;
  cli?: string;
  all_results_written?: boolean;
  cpu_us_per_order?: {
    job?: number | null;
    fetch_only_client_per_request?: number | null;
    fetch_only_client_per_request_after?: number | null;
  };
  job_cpu_over_client_cpu?: number | null;
}

/**
 * Job CPU per order over client CPU per request: the client's figure is the mean of its measurements
 * before and after the job where both were recorded (the load drifts during a run), else the one
 * before (runs recorded before the ratio was).
 */
export function cpuRatio(jobUs: number, clientBeforeUs: number, clientAfterUs?: number | null): number {
  const client = clientAfterUs ? (clientBeforeUs + clientAfterUs) / 2 : clientBeforeUs;
  return Number((jobUs / client).toFixed(3));
}

/** The ratio of a recorded run, or null when it lacks the figures (or did not write every result). */
export function ratioOf(record: BenchRecord): number | null {
  const f = record.figures as RunFigures;
  if (f.all_results_written === false) return null;
  if (typeof f.job_cpu_over_client_cpu === 'number') return f.job_cpu_over_client_cpu;
  const cpu = f.cpu_us_per_order;
  if (!cpu?.job || !cpu.fetch_only_client_per_request) return null;
  return cpuRatio(cpu.job, cpu.fetch_only_client_per_request, cpu.fetch_only_client_per_request_after);
}

const machineKey = (m: BenchMachine): string => JSON.stringify([m.cpu, m.cores, m.memory_gib, m.node, m.database ?? null]);

/** The case a ratio belongs to: the start-up and the latency weigh differently per order at another size or latency. */
const caseKey = (r: BenchRecord): string => {
  const f = r.figures as RunFigures;
  return JSON.stringify([f.orders, f.latency_ms, f.concurrency ?? 64, f.cli ?? null]);
};

/** A run with extra node flags (a profiler) measures something else: never a reference. */
const profiled = (r: BenchRecord): boolean => (r.notes ?? []).some((n) => n.includes('BENCH_NODE_ARGS'));

export interface CreepCheck {
  latest: BenchRecord;
  latestRatio: number;
  /** The best (lowest) ratio recorded before the latest on the same machine for the same case; null: none. */
  best: { record: BenchRecord; ratio: number } | null;
  /** latestRatio / best.ratio - 1 (0.12: the job now costs 12 % more per client request); null without a best. */
  growth: number | null;
  /** Whether the latest run ran with a profiler (its ratio is not comparable). */
  latestProfiled: boolean;
}

/** Compares the last recorded run with the best earlier one of the same machine and case. */
export function checkCreep(records: readonly BenchRecord[]): CreepCheck {
  const latest = records[records.length - 1];
  if (!latest) throw new Error('no run recorded yet: run `npm run bench` first');
  const latestRatio = ratioOf(latest);
  if (latestRatio === null) {
    throw new Error(
      `the latest run (${latest.at}) has no ratio: ${(latest.figures as RunFigures).all_results_written === false ? 'it did not write every result' : 'it lacks the job or client CPU figure'}; run \`npm run bench\` again`,
    );
  }
  let best: CreepCheck['best'] = null;
  for (const r of records.slice(0, -1)) {
    const ratio = ratioOf(r);
    if (ratio === null || profiled(r) || machineKey(r.machine) !== machineKey(latest.machine) || caseKey(r) !== caseKey(latest)) continue;
    if (!best || ratio < best.ratio) best = { record: r, ratio };
  }
  return {
    latest,
    latestRatio,
    best,
    growth: best ? Number((latestRatio / best.ratio - 1).toFixed(3)) : null,
    latestProfiled: profiled(latest),
  };
}
