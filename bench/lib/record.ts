/**
 * A bench's result as data: one JSON line appended to bench/results/<bench>.jsonl per run, with the
 * command, the machine and its load (the machine is shared: a figure means little without them).
 * The current figures a reader wants are in docs/performance/index.md; these files are the log.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BenchMachine {
  cpu: string;
  cores: number;
  memory_gib: number;
  node: string;
  database?: string;
}

export interface BenchRecord {
  /** ISO time the run ended. */
  at: string;
  /** The command as a person would type it (database URLs shown as <postgres>). */
  command: string;
  /** The commit measured, when the checkout is a git work tree. */
  commit?: string;
  machine: BenchMachine;
  /** 1, 5 and 15 minute load averages, at the points the bench names (e.g. before_job, after_job). */
  load: Record<string, number[]>;
  /** The bench's own figures: names with units (seconds, _mb, _us, per_s), numbers as numbers. */
  figures: Record<string, unknown>;
  notes?: string[];
}

export const RESULTS_DIR = path.join(import.meta.dirname, '..', 'results');

export function benchMachine(database?: string): BenchMachine {
  return {
    cpu: os.cpus()[0]?.model ?? 'cpu',
    cores: os.availableParallelism(),
    memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    ...(database ? { database } : {}),
  };
}

export const loadAverages = (): number[] => os.loadavg().map((x) => Number(x.toFixed(2)));

/** HEAD now; a long bench takes it at its start (a commit made during the run is not what ran). */
export function currentCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** Appends one run to bench/results/<bench>.jsonl and returns the file's path. */
export function recordResult(bench: string, record: Omit<BenchRecord, 'commit' | 'at'> & { at?: string; commit?: string }): string {
  if (!/^[a-z0-9-]+$/.test(bench)) throw new Error(`bench name ${JSON.stringify(bench)}: expected lower-case words and dashes`);
  const file = path.join(RESULTS_DIR, `${bench}.jsonl`);
  const full: BenchRecord = { at: record.at ?? new Date().toISOString(), commit: currentCommit(), ...record };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.appendFileSync(file, `${JSON.stringify(full)}\n`);
  return file;
}
