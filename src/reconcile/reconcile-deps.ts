import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import type { RunStatus } from '../db/runs.ts';
import type { Direction } from '../domain/types.ts';
import type { Verdict } from '../domain/verdicts.ts';
import type { ReconPolicy } from '../recon/types.ts';
import type { OrderFetcher } from './fetch-answer.ts';

// What a reconcile call is given and what each of its runs reports: shared by reconcile.ts (the lock)
// and execute-run.ts (one run), so neither imports the other's module for a type.

export interface ReconcileDeps {
  db: Db;
  /** The account the runs check (the fetcher's); its runs, items and cases carry it. Unset: "default". */
  accountId?: string;
  fetcher: OrderFetcher;
  policy: ReconPolicy;
  clock: () => Date;
  logger: Logger;
  concurrency: number;
  batchSize: number;
  /** Set (e.g. by SIGTERM) to stop taking new orders; written batches stay, the run stays resumable. */
  stopSignal?: AbortSignal;
  onProgress?: (progress: ReconcileProgress) => void;
  /** Told once per batch written how many of its orders got each verdict (metrics: a counter moves per batch, not per order). */
  onChecked?: (direction: Direction, verdict: Verdict, count: number) => void;
  /** WEBHOOK_EXPECTED and WEBHOOK_MISSING_MARGIN_MIN: whether a missing notification is a finding. */
  webhooks?: { expect: boolean; marginMs: number };
  /** How often an explicit selection retries a held lock (default 1 s). */
  lockPollMs?: number;
  /**
   * RUN_STALL_AFTER_SECONDS in ms: a lock holder whose run has made no progress for longer is stalled,
   * and this call ends 'stalled' instead of skipping or waiting quietly. Unset: never judged stalled.
   */
  stallAfterMs?: number;
}

export interface ReconcileProgress {
  runId: string;
  selected: number;
  checked: number;
  mismatches: number;
}

export interface RunSummary {
  runId: string;
  resumed: boolean;
  status: Exclude<RunStatus, 'running'>;
  selected: number;
  checked: number;
  counts: Record<string, number>;
  error: string | null;
  /** The first few mismatched orders, for alerts and the summary on screen. */
  examples: Array<{ merchantRef: string; transactionRef: string; codes: string[]; reason: string }>;
}
