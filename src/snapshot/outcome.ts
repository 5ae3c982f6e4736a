import { ProviderUnavailableError } from '../provider/errors.ts';
import type { RunStatus } from '../db/runs.ts';

/** Why one currency's step failed, for the run row, logs and --json. */
export interface UnitFailure {
  currency: string;
  /** What was being done: "balance", "usdtRate", "bankCodes", ... */
  step: string;
  /** The error's class, e.g. ProviderUnavailableError. */
  error: string;
  message: string;
  /** The provider could not be reached (as opposed to answering something unusable). */
  unavailable: boolean;
}

export function unitFailure(currency: string, step: string, err: unknown): UnitFailure {
  const e = err instanceof Error ? err : new Error(String(err));
  return { currency, step, error: e.name, message: e.message, unavailable: err instanceof ProviderUnavailableError };
}

/**
 * A multi-currency run's final status: completed when nothing failed; provider_unavailable when
 * every currency failed for want of the provider; failed otherwise (some currencies stored, or an
 * answer was unusable). Credentials stop a run before this is asked.
 */
export function runStatusOf(failures: readonly UnitFailure[], currencies: number): Exclude<RunStatus, 'running'> {
  if (failures.length === 0) return 'completed';
  const everyCurrency = new Set(failures.map((f) => f.currency)).size >= currencies;
  return everyCurrency && failures.every((f) => f.unavailable) ? 'provider_unavailable' : 'failed';
}

/** One line for job_runs.error: which currency failed at which step, and why. */
export function describeFailures(failures: readonly UnitFailure[]): string | null {
  if (failures.length === 0) return null;
  return failures.map((f) => `${f.currency} ${f.step}: ${f.message}`).join('; ');
}
