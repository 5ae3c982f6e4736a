import { describe, expect, it } from 'vitest';
import { rollForward, type RollForwardInput, type RollForwardResult } from '../src/recon/rollforward.ts';

const opening = { available: '10000.00', pending: '500.00', held: '0' };
const base: RollForwardInput = {
  currency: 'NGN',
  opening,
  // 10500 + (1000 − 15) + (2000 − 30) − (500 + 10) = 10500 + 2445 = 12945
  closing: { available: '12000', pending: '900.00', held: '45' },
  paymentsFinal: [
    { paidAmount: '1000', fee: '15' },
    { paidAmount: '2000.00', fee: '30' },
  ],
  payoutsFinal: [{ amount: '500', fee: '10' }],
  tolerance: '0',
};

interface Case {
  name: string;
  input: RollForwardInput;
  expect: Partial<RollForwardResult>;
  finding: boolean;
}

const cases: Case[] = [
  {
    name: 'exact: no drift',
    input: base,
    expect: {
      openingTotal: '10500',
      explainedMovement: '2445',
      closingTotal: '12945',
      expectedClosing: '12945',
      drift: '0',
      withinTolerance: true,
      note: null,
    },
    finding: false,
  },
  {
    name: 'pre-aggregated sums give the same answer',
    input: { ...base, paymentsFinal: { paidAmount: '3000.00', fee: '45' }, payoutsFinal: { amount: '500', fee: '10' } },
    expect: { explainedMovement: '2445', drift: '0', withinTolerance: true },
    finding: false,
  },
  {
    name: 'SUM over no rows (null) counts as zero',
    input: { ...base, closing: opening, paymentsFinal: { paidAmount: null, fee: null }, payoutsFinal: { amount: null, fee: null } },
    expect: { explainedMovement: '0', drift: '0', withinTolerance: true },
    finding: false,
  },
  {
    name: 'positive drift: more money than explained',
    input: { ...base, closing: { ...base.closing!, available: '13250' } },
    expect: { drift: '1250', withinTolerance: false, expectedClosing: '12945', closingTotal: '14195' },
    finding: true,
  },
  {
    name: 'negative drift: less money than explained',
    input: { ...base, closing: { ...base.closing!, held: '44.99' } },
    expect: { drift: '-0.01', withinTolerance: false },
    finding: true,
  },
  {
    name: 'drift exactly at tolerance is within',
    input: { ...base, closing: { ...base.closing!, held: '44.99' }, tolerance: '0.01' },
    expect: { drift: '-0.01', withinTolerance: true },
    finding: false,
  },
  {
    name: 'drift just above tolerance',
    input: { ...base, closing: { ...base.closing!, held: '44.98' }, tolerance: '0.01' },
    expect: { drift: '-0.02', withinTolerance: false },
    finding: true,
  },
  {
    name: 'no movement, no orders',
    input: { ...base, closing: opening, paymentsFinal: [], payoutsFinal: [] },
    expect: { explainedMovement: '0', drift: '0', withinTolerance: true },
    finding: false,
  },
  {
    name: 'missing opening snapshot: note, no finding',
    input: { ...base, opening: null },
    expect: {
      openingTotal: null,
      closingTotal: '12945',
      drift: null,
      expectedClosing: null,
      withinTolerance: null,
      note: 'no opening balance snapshot; roll-forward not checked',
    },
    finding: false,
  },
  {
    name: 'missing both snapshots',
    input: { ...base, opening: null, closing: null },
    expect: { explainedMovement: '2445', withinTolerance: null, note: 'no opening and closing balance snapshot; roll-forward not checked' },
    finding: false,
  },
  {
    name: 'movements (issue 38): an approved top-up and withdrawal inside the window explain their part',
    // 12945 + 100000 − 2500 = 110445
    input: { ...base, closing: { ...base.closing!, available: '109500' }, movements: ['100000', '-2500.00'] },
    expect: { explainedMovement: '2445', movementsMovement: '97500', expectedClosing: '110445', drift: '0', withinTolerance: true },
    finding: false,
  },
  {
    name: 'movements: what they do not explain is still drift, exactly',
    input: { ...base, closing: { ...base.closing!, available: '109600' }, movements: ['100000', '-2500'] },
    expect: { movementsMovement: '97500', drift: '100', withinTolerance: false },
    finding: true,
  },
  {
    name: 'movements: a withdrawal near the closing snapshot is a timing item the window may leave out',
    input: {
      ...base,
      timingItems: [
        {
          direction: 'movement',
          orderId: '7',
          merchantRef: 'WD-7',
          effect: '-84000',
          from: new Date('2026-03-10T08:50:00Z'),
          to: new Date('2026-03-10T09:10:00Z'),
          straddles: 'closing',
          likelyIn: true,
        },
      ],
    },
    expect: { drift: '0', withinTolerance: true, timingMovement: '0' },
    finding: false,
  },
  {
    name: 'big numbers stay exact',
    input: {
      ...base,
      opening: { available: '12345678901234.56', pending: '0', held: '0' },
      closing: { available: '12345678903679.57', pending: '0', held: '0' },
    },
    expect: { drift: '0.01', withinTolerance: false },
    finding: true,
  },
];

describe('rollForward', () => {
  it.each(cases)('$name', ({ input, expect: want, finding }) => {
    const result = rollForward(input);
    expect(result).toMatchObject({ currency: input.currency, ...want });
    expect(result.finding !== null).toBe(finding);
  });

  it('drift finding carries expected and actual closing', () => {
    const result = rollForward({ ...base, closing: { ...base.closing!, available: '13250' } });
    expect(result.finding).toEqual({
      code: 'BALANCE_DRIFT',
      local: '12945',
      provider: '14195',
      note: 'NGN balance 14195.00, orders explain 12945.00 (drift 1250.00)',
    });
  });

  it.each([
    { name: 'unreadable balance', input: { ...base, closing: { ...base.closing!, held: 'n/a' } }, message: 'closing.held' },
    { name: 'unreadable fee', input: { ...base, payoutsFinal: [{ amount: '1', fee: '' }] }, message: 'payoutsFinal[0].fee' },
    { name: 'negative tolerance', input: { ...base, tolerance: '-1' }, message: 'tolerance' },
  ])('refuses $name', ({ input, message }) => {
    expect(() => rollForward(input)).toThrow(message);
  });
});
