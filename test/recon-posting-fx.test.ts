import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import type { JournalRole } from '../src/domain/journal-roles.ts';
import type { JournalEntry } from '../src/recon/journal-types.ts';
import { postingEntries, type PostedKey, type PostingContext } from '../src/recon/posting.ts';

// The FX side of adjusting entries: what was posted is taken back at the USDT value it was posted
// at; where that rate differs from today's, the entry's USDT residue is an fx_difference line.

const sum = (values: ReadonlyArray<string | null>) => values.reduce((a, v) => a.plus(v ?? '0'), new Decimal(0)).toFixed();
const ctx: PostingContext = { date: '2026-05-01', version: 2, postedOn: '2026-05-03', dayPostedIn: 1 };

function posted(key: string, lines: Array<[JournalRole, string, string, string]>): Map<string, PostedKey> {
  return new Map([
    [
      key,
      {
        currency: 'IDR',
        roles: new Map(lines.map(([role, amount]) => [role, amount])),
        usdt: new Map(lines.map(([role, , usdt, rate]) => [role, { usdt, rate }])),
        lastDate: '2026-05-01',
        lastVersion: 1,
      },
    ],
  ]);
}

function entry(key: string, rate: string, lines: Array<[JournalRole, string, string]>): JournalEntry {
  return {
    key,
    id: `2026-05-01-IDR-${key.split(':')[3]}`,
    date: '2026-05-01',
    currency: 'IDR',
    kind: 'payments',
    description: 'IDR payments final 2026-05-01',
    lines: lines.map(([role, amount, usdt]) => ({ role, amount, usdtRate: rate, usdt, description: role, sourceRef: '3 orders' })),
  };
}

describe('adjusting entries in USDT', () => {
  it('suspense cleared in IDR on a later day is cleared in USDT too: a vanished drift is taken back at the rate it was posted at', () => {
    const key = 'day:2026-05-01:IDR:drift';
    const out = postingEntries(
      [],
      posted(key, [
        ['wallet', '160000', '10.000000', '16000'],
        ['suspense', '-160000', '-10.000000', '16000'],
      ]),
      ctx,
      'day:2026-05-01:',
    );
    expect(out).toHaveLength(1);
    const [e] = out;
    expect(e.date).toBe('2026-05-03');
    const line = (role: JournalRole) => e.lines.find((l) => l.role === role)!;
    expect([line('suspense').amount, line('suspense').usdt, line('suspense').usdtRate]).toEqual(['160000', '10.000000', '16000']);
    expect([line('wallet').amount, line('wallet').usdt]).toEqual(['-160000', '-10.000000']);
    // Suspense back to zero in IDR and in USDT, the entry balanced in both.
    expect(sum(e.lines.map((l) => l.amount))).toBe('0');
    expect(sum(e.lines.map((l) => l.usdt))).toBe('0');
    expect(e.lines.some((l) => l.role === 'fx_difference')).toBe(false);
  });

  it('part of a drift explained later: the part taken back at its posted rate, the suspense left valued as posted', () => {
    const key = 'day:2026-05-01:IDR:drift';
    const out = postingEntries(
      [
        entry(key, '16500', [
          ['wallet', '60000', '3.636364'],
          ['suspense', '-60000', '-3.636364'],
        ]),
      ],
      posted(key, [
        ['wallet', '160000', '10.000000', '16000'],
        ['suspense', '-160000', '-10.000000', '16000'],
      ]),
      ctx,
      'day:2026-05-01:',
    );
    const s = out[0].lines.find((l) => l.role === 'suspense')!;
    expect([s.amount, s.usdt, s.usdtRate]).toEqual(['100000', '6.250000', '16000']);
    // Posted −10 + 6.25: the −60,000 left in suspense is valued at 16,000 as it was posted.
    expect(new Decimal('-10').plus(s.usdt!).toFixed()).toBe('-3.75');
    expect(sum(out[0].lines.map((l) => l.usdt))).toBe('0');
  });

  it('lines at different rates: the residue on an fx_difference line, the entry balanced in IDR and USDT', () => {
    const key = 'day:2026-05-01:IDR:payments';
    const out = postingEntries(
      [
        entry(key, '16500', [
          ['wallet', '1568000', '95.030303'],
          ['fees', '32000', '1.939394'],
          ['payments_clearing', '-1600000', '-96.969697'],
        ]),
      ],
      posted(key, [
        ['wallet', '1584000', '99.000000', '16000'],
        ['fees', '16000', '1.000000', '16000'],
        ['payments_clearing', '-1600000', '-100.000000', '16000'],
      ]),
      ctx,
      'day:2026-05-01:',
    );
    expect(out).toHaveLength(1);
    const lines = out[0].lines;
    const of = (role: JournalRole) => lines.find((l) => l.role === role)!;
    // The wallet's −16,000 takes back what was posted at 16,000; the fee's +16,000 is new, at today's 16,500.
    expect([of('wallet').amount, of('wallet').usdt, of('wallet').usdtRate]).toEqual(['-16000', '-1.000000', '16000']);
    expect([of('fees').amount, of('fees').usdt, of('fees').usdtRate]).toEqual(['16000', '0.969697', '16500']);
    expect([of('fx_difference').amount, of('fx_difference').usdt]).toEqual(['0', '0.030303']);
    expect(lines.some((l) => l.role === 'rounding')).toBe(false);
    expect(sum(lines.map((l) => l.amount))).toBe('0');
    expect(sum(lines.map((l) => l.usdt))).toBe('0');
  });

  it('the same rate on every line: no fx_difference', () => {
    const key = 'day:2026-05-01:IDR:payments';
    const out = postingEntries(
      [
        entry(key, '3', [
          ['wallet', '80', '26.666667'],
          ['fees', '20', '6.666667'],
          ['payments_clearing', '-100', '-33.333333'],
        ]),
      ],
      posted(key, [
        ['wallet', '90', '30.000000', '3'],
        ['fees', '10', '3.333333', '3'],
        ['payments_clearing', '-100', '-33.333333', '3'],
      ]),
      ctx,
      'day:2026-05-01:',
    );
    const lines = out[0].lines;
    expect(lines.map((l) => [l.role, l.usdt])).toEqual([
      ['wallet', '-3.333333'],
      ['fees', '3.333333'],
    ]);
    expect(sum(lines.map((l) => l.usdt))).toBe('0');
  });

  it('nothing known of what was posted in USDT (lines from before): valued at today’s rate as before', () => {
    const key = 'day:2026-05-01:IDR:drift';
    const p = posted(key, [
      ['wallet', '160000', '10.000000', '16000'],
      ['suspense', '-160000', '-10.000000', '16000'],
    ]);
    const old = new Map([...p].map(([k, v]) => [k, { ...v, usdt: undefined }]));
    const out = postingEntries(
      [
        entry(key, '16500', [
          ['wallet', '60000', '3.636364'],
          ['suspense', '-60000', '-3.636364'],
        ]),
      ],
      old,
      ctx,
      'day:2026-05-01:',
    );
    expect(out[0].lines.map((l) => [l.role, l.amount, l.usdt])).toEqual([
      ['wallet', '-100000', '-6.060606'],
      ['suspense', '100000', '6.060606'],
    ]);
  });
});
