import type { Knex } from 'knex';

/**
 * Where a queued run's time went, from its batches' claim and done marks (run_batches): how many
 * batches were in flight on average (the job slots they held), how much of each account's run had
 * at least one batch of it in flight (its budget could be used), the rate an account reached while
 * it had one, and the idle gaps between an account's batches. Ideal batch time: size / the account's rate.
 */
export interface BatchTimeline {
  batches: number;
  /** Seconds from the plan to the first batch claimed. */
  first_claim_s: number;
  /** Mean batches in flight over the run (sum of batch durations / wall). */
  mean_batches_in_flight: number;
  /** Mean over accounts: the share of the account's run (plan to its finish) with one of its batches in flight. */
  account_busy_share: number;
  /** Mean over accounts: orders / seconds with a batch in flight, over the account's rate. */
  rate_while_busy_share: number;
  /** Mean batch seconds, and the ideal (size / rate). */
  mean_batch_s: number;
  ideal_batch_s: number;
  /** Mean over accounts of the mean idle gap between one batch done and its next claimed. */
  mean_gap_s: number;
}

interface Row {
  account: string;
  size: number;
  claimed_at: Date | string;
  done_at: Date | string;
}

export async function batchTimeline(knex: Knex, runIds: string[], t0: number, ratePerSec: number): Promise<BatchTimeline> {
  const rows = (await knex('run_batches')
    .whereIn('run_id', runIds)
    .whereNotNull('done_at')
    .select('account', 'size', 'claimed_at', 'done_at')) as Row[];
  const spans = rows.map((r) => ({
    account: r.account,
    size: Number(r.size),
    from: (new Date(r.claimed_at).getTime() - t0) / 1000,
    to: (new Date(r.done_at).getTime() - t0) / 1000,
  }));
  const wall = Math.max(...spans.map((s) => s.to));
  const byAccount = new Map<string, typeof spans>();
  for (const s of spans) byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
  const busy: number[] = [];
  const rateShare: number[] = [];
  const gaps: number[] = [];
  for (const list of byAccount.values()) {
    list.sort((a, b) => a.from - b.from);
    let union = 0;
    let end = Number.NEGATIVE_INFINITY;
    const accountGaps: number[] = [];
    for (const s of list) {
      if (s.from > end) {
        if (Number.isFinite(end)) accountGaps.push(s.from - end);
        union += s.to - s.from;
      } else if (s.to > end) union += s.to - end;
      end = Math.max(end, s.to);
    }
    busy.push(union / end);
    rateShare.push(list.reduce((n, s) => n + s.size, 0) / union / ratePerSec);
    gaps.push(accountGaps.length ? mean(accountGaps) : 0);
  }
  const round = (n: number) => Number(n.toFixed(3));
  return {
    batches: spans.length,
    first_claim_s: round(Math.min(...spans.map((s) => s.from))),
    mean_batches_in_flight: round(spans.reduce((n, s) => n + s.to - s.from, 0) / wall),
    account_busy_share: round(mean(busy)),
    rate_while_busy_share: round(mean(rateShare)),
    mean_batch_s: round(mean(spans.map((s) => s.to - s.from))),
    ideal_batch_s: round(mean(spans.map((s) => s.size / ratePerSec))),
    mean_gap_s: round(mean(gaps)),
  };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
