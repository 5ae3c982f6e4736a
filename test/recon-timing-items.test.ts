import { describe, expect, it } from 'vitest';
import { rollForward, type RollForwardInput } from '../src/recon/rollforward.ts';
import { classifyFinality, MAX_SEARCHED, type TimingItem } from '../src/recon/timing-items.ts';

const at = (min: number) => new Date(Date.UTC(2026, 2, 10, 8, min));
// Opening balance read from 08:00 to 08:01, closing from 09:00 to 09:01.
const opening = { from: at(0), to: at(1) };
const closing = { from: at(60), to: at(61) };

describe('classifyFinality: where an order final in (from, to] stands between two readings', () => {
  it.each([
    { name: 'seen open after the opening reading, final before the closing one', from: at(5), to: at(30), want: 'in' },
    { name: 'final before the opening reading began', from: at(-30), to: at(0), want: 'out' },
    { name: 'still open after the closing reading ended', from: at(61), to: at(80), want: 'out' },
    {
      name: 'straddles the closing reading, mostly before it',
      from: at(40),
      to: at(62),
      want: { straddles: 'closing', likelyIn: true },
    },
    {
      name: 'straddles the closing reading, mostly after it',
      from: at(59),
      to: at(90),
      want: { straddles: 'closing', likelyIn: false },
    },
    {
      name: 'straddles the opening reading, mostly inside the window',
      from: at(0),
      to: at(20),
      want: { straddles: 'opening', likelyIn: true },
    },
    { name: 'spans both readings', from: at(-10), to: at(70), want: { straddles: 'both', likelyIn: true } },
  ])('$name', ({ from, to, want }) => {
    expect(classifyFinality({ from, to }, opening, closing)).toEqual(want);
  });
});

const item = (effect: string, likelyIn: boolean, id = effect): TimingItem => ({
  direction: effect.startsWith('-') ? 'payout' : 'payment',
  orderId: id,
  merchantRef: `m-${id}`,
  effect,
  from: at(59),
  to: at(62),
  straddles: 'closing',
  likelyIn,
});

const base: RollForwardInput = {
  currency: 'NGN',
  opening: { available: '1000.00', pending: '0', held: '0' },
  closing: { available: '1000.00', pending: '0', held: '0' },
  paymentsFinal: [],
  payoutsFinal: [],
  tolerance: '0',
};
const closingAt = (available: string) => ({ ...base.closing!, available });

describe('rollForward with timing items', () => {
  it.each([
    {
      name: 'a timing item on its default side explains the movement',
      input: { ...base, closing: closingAt('1250.00'), timingItems: [item('250', true)] },
      want: { drift: '0', withinTolerance: true, timingMovement: '250', assigned: [true] },
    },
    {
      name: 'a timing item on the other side than its default explains it: no drift',
      input: { ...base, closing: closingAt('1000.00'), timingItems: [item('250', true)] },
      want: { drift: '0', withinTolerance: true, timingMovement: '0', assigned: [false] },
    },
    {
      name: 'the assignment closest to the defaults is chosen',
      input: {
        ...base,
        closing: closingAt('1100.00'),
        timingItems: [item('100', false, 'a'), item('100', true, 'b'), item('-40', false, 'c')],
      },
      want: { drift: '0', withinTolerance: true, assigned: [false, true, false] },
    },
    {
      name: 'no assignment explains it: BALANCE_DRIFT of the smallest residual, the note says why',
      input: { ...base, closing: closingAt('1300.01'), timingItems: [item('250', true), item('-75', false)] },
      want: { drift: '50.01', withinTolerance: false, timingMovement: '250', assigned: [true, false] },
    },
    {
      name: 'a real drift is not inflated by a timing item left on its default side',
      input: { ...base, closing: closingAt('1000.50'), timingItems: [item('250', true)] },
      want: { drift: '0.5', withinTolerance: false, timingMovement: '0', assigned: [false] },
    },
    {
      name: 'a planted 0.01 is not hidden by timing items that cannot add up to it',
      input: { ...base, closing: closingAt('1250.01'), timingItems: [item('250', false)] },
      want: { drift: '0.01', withinTolerance: false, assigned: [true] },
    },
  ])('$name', ({ input, want }) => {
    const r = rollForward(input);
    expect(r).toMatchObject({ drift: want.drift, withinTolerance: want.withinTolerance });
    if (want.timingMovement !== undefined) expect(r.timingMovement).toBe(want.timingMovement);
    expect(r.timingItems.map((i) => i.assignedIn)).toEqual(want.assigned);
    expect(r.finding !== null).toBe(!want.withinTolerance);
  });

  it('the finding names the timing items that were tried', () => {
    const r = rollForward({ ...base, closing: closingAt('1300.01'), timingItems: [item('250', true), item('-75', false)] });
    expect(r.finding?.note).toBe(
      'NGN balance 1300.01, orders explain 1250.00 (drift 50.01); 2 timing items, no assignment of them explains it',
    );
  });

  it(`past ${MAX_SEARCHED} timing items only the defaults are tried, and the note says so`, () => {
    const many = Array.from({ length: MAX_SEARCHED + 1 }, (_, i) => item('1', false, String(i)));
    const r = rollForward({ ...base, closing: closingAt('1003.00'), timingItems: many });
    expect(r).toMatchObject({ drift: '3', withinTolerance: false });
    expect(r.finding?.note).toContain(`only their default sides were tried (more than ${MAX_SEARCHED})`);
  });

  it('refuses an unreadable timing item effect', () => {
    expect(() => rollForward({ ...base, timingItems: [item('x', true)] })).toThrow('timingItems[0].effect');
  });
});
