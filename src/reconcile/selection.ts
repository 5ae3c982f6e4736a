import { DateTime } from 'luxon';
import type { Currency } from '../money/decimal.ts';
import { checkBusinessDate } from '../domain/business-date.ts';
import type { Direction } from '../domain/types.ts';

/** What a reconcile run checks, as stored in job_runs.params so a resumed run selects the same orders. */
export type Selection =
  | {
      mode: 'due';
      asOf: string;
      lookbackFrom: string;
      /** Final orders last checked before this are re-checked too (RECON_FINAL_RECHECK_DAYS); absent: none. */
      finalRecheckBefore?: string;
      kind?: Direction;
      currency?: Currency;
      account?: string;
    }
  | { mode: 'range'; from: string; to: string; label: string; kind?: Direction; currency?: Currency; account?: string }
  | { mode: 'ref'; ref: string; kind?: Direction; currency?: Currency; account?: string }
  /**
   * The orders of the lookback window whose provider status may still move the balance: not final in the
   * merchant's books, still open at the provider as last seen, or never checked (issue 43): the snapshot
   * job's check around its balance readings.
   * dueBy: only those due by then (SNAPSHOT_OPEN_CHECK=due); absent: every one, due or not.
   */
  | { mode: 'open'; lookbackFrom: string; dueBy?: string; kind?: Direction; currency?: Currency; account?: string };

export interface SelectionRequest {
  date?: string;
  from?: string;
  to?: string;
  ref?: string;
  kind?: Direction;
  currency?: Currency;
  /** Only this account's orders; set when several accounts are configured (the run's client is that account's). */
  account?: string;
}

/** Parses a business date strictly (checkBusinessDate: YYYY-MM-DD, a real calendar day, in range), as local midnight. */
export function parseBusinessDate(value: string, zone: string, field = '--date'): DateTime {
  return DateTime.fromISO(checkBusinessDate(value, field), { zone }).startOf('day');
}

/**
 * Turns the command line into a selection. Business dates are days in the report time zone;
 * --to is inclusive. Pure: the caller passes the run's start time.
 */
export function buildSelection(
  request: SelectionRequest,
  opts: { now: Date; zone: string; lookbackDays: number; finalRecheckDays?: number },
): Selection {
  const common = { kind: request.kind, currency: request.currency, ...(request.account !== undefined ? { account: request.account } : {}) };
  const modes = [request.date !== undefined, request.from !== undefined || request.to !== undefined, request.ref !== undefined].filter(
    Boolean,
  );
  if (modes.length > 1) throw new RangeError('choose one of --date, --from/--to, or --ref');
  if (request.ref !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(request.ref)) {
      throw new RangeError('--ref: expected a merchantRef or transactionRef (letters, digits, "-", "_", ".", ":"; at most 128)');
    }
    return { mode: 'ref', ref: request.ref, ...common };
  }
  if (request.date !== undefined) {
    const day = parseBusinessDate(request.date, opts.zone);
    return { mode: 'range', from: day.toUTC().toISO()!, to: day.plus({ days: 1 }).toUTC().toISO()!, label: request.date, ...common };
  }
  if (request.from !== undefined || request.to !== undefined) {
    if (request.from === undefined || request.to === undefined) throw new RangeError('--from and --to go together');
    const from = parseBusinessDate(request.from, opts.zone, '--from');
    const to = parseBusinessDate(request.to, opts.zone, '--to');
    if (to < from) throw new RangeError('--to: must not be before --from');
    return {
      mode: 'range',
      from: from.toUTC().toISO()!,
      to: to.plus({ days: 1 }).toUTC().toISO()!,
      label: `${request.from}..${request.to}`,
      ...common,
    };
  }
  const asOf = DateTime.fromJSDate(opts.now).toUTC();
  const recheck = opts.finalRecheckDays ? { finalRecheckBefore: asOf.minus({ days: opts.finalRecheckDays }).toISO()! } : {};
  return { mode: 'due', asOf: asOf.toISO()!, lookbackFrom: asOf.minus({ days: opts.lookbackDays }).toISO()!, ...recheck, ...common };
}
