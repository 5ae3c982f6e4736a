import type { RunRow, RunStatus } from '../db/runs.ts';
import { verdictKey } from '../recon/run-counts.ts';
import type { CheckToWrite } from './check-order.ts';
import { FailureWindow } from './failure-window.ts';
import { countDelta } from './write-batch.ts';
import type { RunSummary } from './reconcile-deps.ts';
import type { Selection } from './selection.ts';

const EXAMPLES_KEPT = 5;

/** Why a run stops before its selection is done, set by the first fetch that must end it. */
export interface Halt {
  status: 'credentials' | 'provider_unavailable';
  message: string;
}

/**
 * The one mutable value of a run: what it has counted and written so far, and whether it must stop.
 * A resumed run starts from the counts its row holds, so its summary covers the whole run.
 */
export class RunState {
  readonly counts: Record<string, number>;
  checked: number;
  selected: number;
  readonly examples: RunSummary['examples'] = [];
  halt: Halt | null = null;
  readonly failures = new FailureWindow();

  constructor(
    readonly run: RunRow,
    readonly resumed: boolean,
    readonly selection: Selection,
  ) {
    this.counts = { ...run.counts };
    this.checked = run.checked;
    this.selected = run.selected;
  }

  /** The first reason to stop wins: later fetches of the same batch only echo it. */
  haltOnce(halt: Halt): void {
    this.halt ??= halt;
  }

  /** Counts the checks a batch wrote and keeps the first few mismatches as examples. */
  record(done: readonly CheckToWrite[]): void {
    this.checked += done.length;
    for (const [k, v] of Object.entries(countDelta(done))) this.counts[k] = (this.counts[k] ?? 0) + v;
    for (const c of done) {
      if (c.result.verdict === 'mismatch' && this.examples.length < EXAMPLES_KEPT) {
        this.examples.push({
          merchantRef: c.item.merchantRef,
          transactionRef: c.item.transactionRef,
          codes: c.result.codes,
          reason: c.result.reason,
        });
      }
    }
  }

  get mismatches(): number {
    return this.counts[verdictKey('mismatch')] ?? 0;
  }

  summary(status: Exclude<RunStatus, 'running'>, error: string | null): RunSummary {
    const { run, resumed, selected, checked, counts, examples } = this;
    return { runId: run.id, resumed, status, selected, checked, counts, error, examples };
  }
}
