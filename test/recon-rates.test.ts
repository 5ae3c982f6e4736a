import { describe, expect, it } from 'vitest';
import { flagRate, type PreviousRate, type RateCheck, type RateReading } from '../src/recon/rates.ts';

const HOUR = 3_600_000;
const T0 = new Date('2024-05-10T00:00:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);
const policy = { staleAfterMs: 24 * HOUR, jumpPercent: '5' };

const prev = (o: Partial<PreviousRate> = {}): PreviousRate => ({
  deposit: '1500.00',
  withdraw: '1520',
  takenAt: at(0),
  unchangedSince: at(0),
  ...o,
});
const cur = (o: Partial<RateReading> = {}): RateReading => ({ deposit: '1500', withdraw: '1520.00', takenAt: at(1), ...o });

const cases: { name: string; previous: PreviousRate | null; current: RateReading; want: Omit<RateCheck, 'notes'>; note?: string }[] = [
  { name: 'first reading: nothing to compare', previous: null, current: cur(), want: { flags: [], unchangedSince: at(1) } },
  {
    name: 'unchanged (other notation), young: no flag, keeps unchangedSince',
    previous: prev(),
    current: cur(),
    want: { flags: [], unchangedSince: at(0) },
  },
  {
    name: 'unchanged exactly at the stale limit: not stale',
    previous: prev({ takenAt: at(23) }),
    current: cur({ takenAt: at(24) }),
    want: { flags: [], unchangedSince: at(0) },
  },
  {
    name: 'unchanged past the limit: RATE_STALE',
    previous: prev({ takenAt: at(24) }),
    current: cur({ takenAt: at(25) }),
    want: { flags: ['RATE_STALE'], unchangedSince: at(0) },
    note: 'rate unchanged since 2024-05-10T00:00:00.000Z',
  },
  {
    name: 'small move: no flag, unchangedSince resets',
    previous: prev(),
    current: cur({ deposit: '1510' }),
    want: { flags: [], unchangedSince: at(1) },
  },
  { name: 'move exactly 5%: not a jump', previous: prev(), current: cur({ deposit: '1575' }), want: { flags: [], unchangedSince: at(1) } },
  {
    name: 'move above 5%: RATE_JUMP',
    previous: prev(),
    current: cur({ deposit: '1575.01' }),
    want: { flags: ['RATE_JUMP'], unchangedSince: at(1) },
    note: 'deposit moved 5.00% (1500 → 1575.01)',
  },
  {
    name: 'drop above 5% on withdraw: RATE_JUMP',
    previous: prev(),
    current: cur({ withdraw: '1400' }),
    want: { flags: ['RATE_JUMP'], unchangedSince: at(1) },
    note: 'withdraw moved -7.89% (1520 → 1400)',
  },
  {
    name: 'move from zero: RATE_JUMP',
    previous: prev({ deposit: '0' }),
    current: cur(),
    want: { flags: ['RATE_JUMP'], unchangedSince: at(1) },
    note: 'deposit moved from 0 (0 → 1500)',
  },
];

describe('flagRate', () => {
  it.each(cases)('$name', ({ previous, current, want, note }) => {
    const result = flagRate(previous, current, policy);
    expect({ flags: result.flags, unchangedSince: result.unchangedSince }).toEqual(want);
    if (note) expect(result.notes).toContain(note);
    else expect(result.notes).toEqual([]);
  });
});
