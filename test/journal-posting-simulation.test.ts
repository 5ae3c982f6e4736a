// Issue 37: over the 48-hour drift simulation (one planted balance adjustment, one fee correction
// seen by a rerun of its day), the reports of every day written nightly, then reruns and forced
// re-reports; post every posting file once, in the order written: per currency the wallet equals the
// provider's balance at every close, and every entry balances in its currency and in the base (USDT).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { requiresServer } from './helpers/db.ts';
import { simulateDrift } from './helpers/drift-sim.ts';
import { readJournalCsv, signed, sumBy, type CsvLine } from './helpers/journal-csv.ts';
import { writeReports, type WriteReportsResult } from '../src/report/write-reports.ts';
import { CURRENCIES, Decimal } from '../src/money/decimal.ts';

const NEEDS = 'the sweep and the snapshot job take the reconcile lock on separate connections at once';

describe.skipIf(requiresServer(NEEDS))('posting every posting file of 48 simulated hours, in order', () => {
  it('seed 5: the wallet equals the provider balance at every close; every entry balances; the fee correction posted once', async () => {
    const files: Array<{ r: WriteReportsResult; lines: CsvLine[] }> = [];
    const closes: Array<{ date: string; currency: string; closing: string; checked: boolean }> = [];
    let first = new Map<string, string>();
    await simulateDrift({
      seed: 5,
      hours: 48,
      orders: 30,
      lateFeeCorrection: true,
      inspect: async (knex, db) => {
        const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-posting-sim-'));
        const snaps = (
          await knex.raw(`SELECT currency, (available + pending + held)::text AS t, taken_at FROM balance_snapshots ORDER BY taken_at, id`)
        ).rows as Array<{ currency: string; t: string; taken_at: Date }>;
        first = new Map(CURRENCIES.map((c) => [c, snaps.find((s) => s.currency === c)!.t]));
        const start = DateTime.fromJSDate(snaps[0].taken_at, { zone: 'UTC' }).startOf('day');
        const end = DateTime.fromJSDate(snaps.at(-1)!.taken_at, { zone: 'UTC' });
        const days: string[] = [];
        for (let d = start; d <= end; d = d.plus({ days: 1 })) days.push(d.toISODate()!);
        for (const date of days)
          for (const c of CURRENCIES) {
            const dayEnd = DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1 }).toJSDate();
            const inDay = snaps.filter((s) => s.currency === c && s.taken_at < dayEnd);
            const dayStart = DateTime.fromISO(date, { zone: 'UTC' }).toJSDate();
            closes.push({ date, currency: c, closing: inDay.at(-1)!.t, checked: inDay.filter((s) => s.taken_at >= dayStart).length > 0 });
          }
        // Nightly: each day an hour after it ends; then day 1 rerun (forced) after day 2, day 2 forced after day 3, day 3 forced.
        const write = async (date: string, hoursAfter: number, force = false) => {
          const now = DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1, hours: hoursAfter }).toJSDate();
          const r = await writeReports(db, { date, timezone: 'UTC', reportDir, now, currencies: [...CURRENCIES], force });
          if (!r.unchanged) files.push({ r, lines: readJournalCsv(path.join(r.directory, 'journal_posting.csv')) });
        };
        await write(days[0], 1);
        await write(days[1], 1);
        await write(days[0], 25, true);
        if (days[2]) await write(days[2], 1);
        await write(days[1], 26, true);
        if (days[2]) await write(days[2], 2, true);
      },
    });
    expect(files.length).toBeGreaterThanOrEqual(5);
    const all = files.flatMap((f) => f.lines);
    // Every entry balances in its currency and in USDT.
    const entries = new Map<string, CsvLine[]>();
    for (const l of all) entries.set(l.posting_id, [...(entries.get(l.posting_id) ?? []), l]);
    for (const [id, lines] of entries) {
      expect(sumBy(lines, (l) => signed(l).toFixed()).toFixed(), id).toBe('0');
      if (lines.some((l) => l.usdt_rate !== ''))
        expect(sumBy(lines, (l) => new Decimal(l.usdt_debit || '0').minus(l.usdt_credit || '0').toFixed()).toFixed(), id).toBe('0');
    }
    // Journal numbers unique over every file.
    expect(new Set(all.map((l) => l.posting_id)).size).toBe(entries.size);
    // The fee correction: one entry, 1.00, in one posting file.
    const corrections = all.filter((l) => l.role === 'fee_correction');
    expect(corrections.map((l) => l.debit)).toEqual(['1.00']);
    // The wallet, by entry date, at every close: the first opening plus every wallet line dated up to that day.
    const checked = closes.filter((c) => c.checked);
    expect(checked.length).toBeGreaterThanOrEqual(2 * CURRENCIES.length);
    for (const c of checked) {
      const posted = sumBy(
        all.filter((l) => l.role === 'wallet' && l.currency === c.currency && l.date <= c.date),
        (l) => signed(l).toFixed(),
      );
      expect(new Decimal(first.get(c.currency)!).plus(posted).toFixed(2), `${c.currency} at the close of ${c.date}`).toBe(
        new Decimal(c.closing).toFixed(2),
      );
    }
    // Suspense holds the planted adjustment alone (the one thing no order, late change or movement explains).
    const suspense = CURRENCIES.map((c) =>
      sumBy(
        all.filter((l) => l.role === 'suspense' && l.currency === c),
        (l) => signed(l).toFixed(),
      ),
    ).filter((s) => !s.isZero());
    expect(suspense).toHaveLength(1);
  }, 900_000);
});
