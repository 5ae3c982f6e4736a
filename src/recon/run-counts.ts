import { VERDICTS, type Verdict } from '../domain/verdicts.ts';

/**
 * A run's counters as stored on job_runs.counts: `verdict:<verdict>` and `code:<CODE>` keys, plus a
 * job's own plain counters (a snapshot's `balances`, `failed`). The one place those keys are spelt.
 */
export type RunCounts = Record<string, number>;

const VERDICT_PREFIX = 'verdict:';
const CODE_PREFIX = 'code:';

export const verdictKey = (verdict: Verdict): string => `${VERDICT_PREFIX}${verdict}`;
export const codeKey = (code: string): string => `${CODE_PREFIX}${code}`;

/** Adds one checked order (its verdict, each of its codes once) to counts, in place. */
export function countCheck(counts: RunCounts, verdict: Verdict, codes: readonly string[]): void {
  counts[verdictKey(verdict)] = (counts[verdictKey(verdict)] ?? 0) + 1;
  // Most checks find nothing: no set to build.
  if (codes.length === 0) return;
  for (const code of codes.length === 1 ? codes : new Set(codes)) counts[codeKey(code)] = (counts[codeKey(code)] ?? 0) + 1;
}

/** Adds a code found n times (snapshot findings), in place. */
export function countCode(counts: RunCounts, code: string, n = 1): void {
  counts[codeKey(code)] = (counts[codeKey(code)] ?? 0) + n;
}

/** Every verdict in VERDICTS order, zeros included, so tables always have the same rows. */
export function verdictCounts(counts: RunCounts): Array<[Verdict, number]> {
  return VERDICTS.map((v) => [v, counts[verdictKey(v)] ?? 0]);
}

/** The codes counted, by name. */
export function codeCounts(counts: RunCounts): Array<[string, number]> {
  return Object.keys(counts)
    .filter((k) => k.startsWith(CODE_PREFIX))
    .sort()
    .map((k) => [k.slice(CODE_PREFIX.length), counts[k]]);
}

/** Every counter but the codes, verdicts named without their prefix, by name: a run's one-line tally. */
export function tallyCounts(counts: RunCounts): Array<[string, number]> {
  return Object.entries(counts)
    .filter(([k, v]) => v && !k.startsWith(CODE_PREFIX))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => [k.startsWith(VERDICT_PREFIX) ? k.slice(VERDICT_PREFIX.length) : k, v]);
}
