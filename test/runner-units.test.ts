import { describe, expect, it } from 'vitest';
import { buildSelection } from '../src/reconcile/selection.ts';
import { FailureWindow } from '../src/reconcile/failure-window.ts';
import { runOrderedPipeline } from '../src/reconcile/ordered-pipeline.ts';

const now = new Date('2026-11-22T08:30:00Z');
const opts = { now, zone: 'Asia/Kolkata', lookbackDays: 30 };

describe('buildSelection', () => {
  it.each([
    [
      'default: due orders in the lookback window',
      {},
      { mode: 'due', asOf: '2026-11-22T08:30:00.000Z', lookbackFrom: '2026-10-23T08:30:00.000Z' },
    ],
    [
      'a business day in the report time zone',
      { date: '2026-11-21' },
      { mode: 'range', from: '2026-11-20T18:30:00.000Z', to: '2026-11-21T18:30:00.000Z', label: '2026-11-21' },
    ],
    [
      '--from/--to, --to inclusive',
      { from: '2026-11-01', to: '2026-11-02' },
      { mode: 'range', from: '2026-10-31T18:30:00.000Z', to: '2026-11-02T18:30:00.000Z' },
    ],
    [
      'one order by ref, narrowed by kind and currency',
      { ref: 'abc-123', kind: 'payout', currency: 'NGN' },
      { mode: 'ref', ref: 'abc-123', kind: 'payout', currency: 'NGN' },
    ],
  ] as const)('%s', (_name, request, expected) => {
    expect(buildSelection(request, opts)).toMatchObject(expected);
  });

  it.each([
    ['a path-like date', { date: '../../etc' }, /--date: invalid date "..\/..\/etc": expected a calendar date/],
    ['an impossible date', { date: '2026-02-30' }, /--date: invalid date 2026-02-30: expected a calendar date/],
    ['a date Postgres and the report cannot use', { date: '0001-01-01' }, /--date: .* from 2000-01-01 to 9999-12-30/],
    ['a --to past the last date', { from: '2026-01-01', to: '9999-12-31' }, /--to: invalid date 9999-12-31/],
    ['a date with time', { date: '2026-11-21T00:00' }, /--date/],
    ['--from without --to', { from: '2026-11-01' }, /--from and --to go together/],
    ['--to before --from', { from: '2026-11-02', to: '2026-11-01' }, /--to: must not be before --from/],
    ['two modes at once', { date: '2026-11-01', ref: 'x' }, /choose one of/],
    ['SQL in --ref', { ref: "x'; DROP TABLE payment_orders;--" }, /--ref: expected a merchantRef or transactionRef/],
  ] as const)('rejects %s', (_name, request, message) => {
    expect(() => buildSelection(request, opts)).toThrow(message);
  });
});

describe('FailureWindow', () => {
  it('trips only once the window is full and most outcomes failed', () => {
    const w = new FailureWindow(10, 0.8);
    for (let i = 0; i < 9; i++) w.record(true);
    expect(w.tripped).toBe(false); // not full yet
    w.record(false);
    expect(w.tripped).toBe(true); // 9 of 10
    for (let i = 0; i < 3; i++) w.record(false);
    expect(w.tripped).toBe(false); // 6 of the last 10
  });
});

describe('runOrderedPipeline', () => {
  async function* pages(n: number, size: number) {
    for (let p = 0; p < n; p++) yield Array.from({ length: size }, (_, i) => p * size + i);
  }

  it('commits pages strictly in order even when later pages finish first', async () => {
    const committed: number[][] = [];
    await runOrderedPipeline(
      pages(5, 4),
      async (x) => {
        await new Promise((r) => setTimeout(r, (20 - x) % 7)); // later items often finish first
        return x * 10;
      },
      (_x, fetched) => fetched,
      async (page, results) => {
        committed.push(results);
        expect(results).toEqual(page.map((x) => x * 10));
      },
      { concurrency: 3, ahead: 3 },
    );
    expect(committed.map((r) => r[0])).toEqual([0, 40, 80, 120, 160]);
  });

  it('never runs more than the concurrency limit at once, across pages', async () => {
    let active = 0;
    let peak = 0;
    await runOrderedPipeline(
      pages(6, 5),
      async () => {
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 2));
        active--;
      },
      () => undefined,
      async () => undefined,
      { concurrency: 4 },
    );
    expect(peak).toBe(4);
  });

  it('stops reading pages once told to stop, committing what is in flight', async () => {
    const committed: number[] = [];
    let stop = false;
    await runOrderedPipeline(
      pages(10, 2),
      async (x) => x,
      (_x, fetched) => fetched,
      async (page) => {
        committed.push(page[0]);
        if (committed.length === 2) stop = true;
      },
      { concurrency: 2, ahead: 1, shouldStop: () => stop },
    );
    expect(committed).toEqual([0, 2]);
  });

  it("gives an item's slot back before finishing it: the next item's work starts first", async () => {
    const events: string[] = [];
    await runOrderedPipeline(
      pages(1, 3),
      async (x) => {
        events.push(`work ${x}`);
        await new Promise((r) => setTimeout(r, 1));
        return x;
      },
      (x, fetched) => {
        events.push(`finish ${x}`);
        return fetched * 2;
      },
      async (_page, results) => void events.push(`commit ${results.join(',')}`),
      { concurrency: 1 },
    );
    expect(events).toEqual(['work 0', 'work 1', 'finish 0', 'work 2', 'finish 1', 'finish 2', 'commit 0,2,4']);
  });

  it('a finish that throws fails the page, like a failed work', async () => {
    const run = runOrderedPipeline(
      pages(2, 2),
      async (x) => x,
      (x) => {
        if (x === 1) throw new Error('bad answer');
        return x;
      },
      async () => undefined,
      { concurrency: 2 },
    );
    await expect(run).rejects.toThrow('bad answer');
  });
});
