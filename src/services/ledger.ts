// The ledger command's job: the posting files written so far and the trial balance as of one of them.
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { listPostings, postingSeqOf, trialBalance, type TrialBalanceRow } from '../db/journal-postings.ts';
import { accountFor as ledgerAccountFor } from '../report/journal-accounts.ts';
import { accountFor, apartOf, journalChartOf } from '../config/accounts.ts';
import type { Config } from '../config/config.ts';
import { checkBusinessDate } from '../domain/business-date.ts';
import { UsageError } from '../domain/errors.ts';

export interface LedgerTrialBalance {
  /** The posting file it is as of ("2026-01-02/v2") and its place in the order written. */
  asOf: { seq: number; file: string } | null;
  rows: Array<TrialBalanceRow & { accountCode: string; accountName: string }>;
}

/** `--as-of 2026-01-02/v2` (a report version) or nothing (the last posting file). */
function parseAsOf(asOf: string | undefined): { date: string; version: number } | null {
  if (asOf === undefined) return null;
  const m = /^(\d{4}-\d{2}-\d{2})\/v(\d+)$/.exec(asOf);
  if (!m) throw new UsageError(`--as-of: expected a report version as DATE/vN, such as 2026-01-02/v2 (got ${JSON.stringify(asOf)})`);
  return { date: checkBusinessDate(m[1], '--as-of'), version: Number(m[2]) };
}

/**
 * With several accounts the ledger is one account's (named, or refused naming the ids), with its chart of
 * accounts over JOURNAL_ACCOUNTS_FILE, as its report wrote it; with one, every posting as before.
 */
function ledgerScope(config: Config, id: string | undefined) {
  const apart = apartOf(config, accountFor(config, id));
  return { account: apart?.id, chart: apart ? journalChartOf(apart, config) : config.JOURNAL_ACCOUNTS_FILE };
}

export async function ledgerTrialBalanceJob(
  opts: { asOf?: string; account?: string },
  context: JobContextOptions = {},
): Promise<LedgerTrialBalance> {
  const asOf = parseAsOf(opts.asOf);
  return withJob('ledger', context, async ({ db, config }) => {
    const { account, chart } = ledgerScope(config, opts.account);
    const postings = await listPostings(db.knex, account);
    const seq = asOf ? await postingSeqOf(db.knex, asOf.date, asOf.version, account) : (postings.at(-1)?.seq ?? null);
    if (asOf && seq === null)
      throw new UsageError(`--as-of ${opts.asOf}: that report version wrote no posting file (partial, or never written)`);
    if (seq === null) return { asOf: null, rows: [] };
    const p = postings.find((x) => x.seq === seq)!;
    const rows = (await trialBalance(db.knex, seq, account)).map((r) => {
      const a = ledgerAccountFor(chart, r.role, r.currency);
      return { ...r, accountCode: a.code, accountName: a.name };
    });
    return { asOf: { seq, file: `${p.date}/v${p.version}` }, rows };
  });
}

export async function ledgerPostingsJob(opts: { account?: string } = {}, context: JobContextOptions = {}) {
  return withJob('ledger', context, async ({ db, config }) => listPostings(db.knex, ledgerScope(config, opts.account).account));
}
