/**
 * What of a CSV row is business content, for the version decision (a new version only when the
 * business content changed). Choices, for accounting:
 * - Which run found something, and when, is not content: run_id, checked_at, last_checked_at.
 * - Free-text reasons are not content: they may carry a clock ("pending for 49 hours"); the
 *   verdict and codes say what they explain.
 * - A case's age is counted to the instant the version is written, so it moves with the clock; its
 *   state (acknowledged, resolved, written off) is content.
 * - `resolved` is `matched` seen by the run that updated the local order: a later check of the
 *   same order says `matched` about the same facts. In a resolved row the local columns are
 *   what the order held before that update, so they read as the provider's (which it now holds).
 * - In summary rows, resolved orders count as matched for the same reason.
 */
export const VOLATILE_COLUMNS = [
  'run_id',
  'checked_at',
  'last_checked_at',
  'reason',
  'case_age_days',
  'oldest_open_days',
  // The case activity's still-open counts by age (case-tables.ts STILL_OPEN_COLUMNS).
  'still_open_lt_1d',
  'still_open_1_3d',
  'still_open_3_7d',
  'still_open_gt_7d',
] as const;

/** Local columns a resolution overwrites with the provider's value. */
const RESOLVED_LOCAL: ReadonlyArray<readonly [string, string]> = [
  ['local_status', 'provider_status'],
  ['local_paid_amount', 'provider_paid_amount'],
  ['local_fee', 'provider_fee'],
];

export type BusinessView = (row: readonly string[]) => string[];

export function businessView(header: readonly string[]): BusinessView {
  const at = (name: string) => header.indexOf(name);
  const kept = header.flatMap((h, i) => ((VOLATILE_COLUMNS as readonly string[]).includes(h) ? [] : [i]));
  const verdict = at('verdict');
  const resolvedLocal = RESOLVED_LOCAL.map(([l, p]) => [at(l), at(p)] as const).filter(([l, p]) => l >= 0 && p >= 0);
  const matched = at('matched');
  const resolved = at('resolved');
  return (row) => {
    const r = [...row];
    if (verdict >= 0 && r[verdict] === 'resolved') {
      r[verdict] = 'matched';
      for (const [l, p] of resolvedLocal) r[l] = r[p];
    }
    if (matched >= 0 && resolved >= 0 && r[matched] !== '' && r[resolved] !== '') {
      r[matched] = String(Number(r[matched]) + Number(r[resolved]));
      r[resolved] = '';
    }
    return kept.map((i) => r[i]);
  };
}
