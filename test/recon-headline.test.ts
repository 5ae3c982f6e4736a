import { describe, expect, it } from 'vitest';
import { reportHeadline, type HeadlineFacts } from '../src/recon/headline.ts';

const none = { matched: 0, resolved: 0, pending: 0, mismatch: 0, error: 0, unchecked: 0 };
const facts = (over: Partial<HeadlineFacts> & { v?: Partial<typeof none> }): HeadlineFacts => ({
  orders: Object.values({ ...none, ...over.v }).reduce((a, b) => a + b, 0),
  verdicts: { ...none, ...over.v },
  drifts: [],
  partial: false,
  openItems: 0,
  lateChanges: 0,
  ...over,
});

describe('report headline', () => {
  it.each([
    { name: 'a day with no orders', f: facts({}), line: 'no orders' },
    { name: 'a day nobody checked', f: facts({ v: { unchecked: 13 } }), line: '13 orders not yet reconciled' },
    { name: 'one order nobody checked', f: facts({ v: { unchecked: 1 } }), line: '1 order not yet reconciled' },
    { name: 'checked and consistent', f: facts({ v: { matched: 10, resolved: 3 } }), line: '13 orders, all matched' },
    { name: 'mismatches', f: facts({ v: { matched: 11, mismatch: 2 } }), line: '13 orders, 2 mismatches' },
    { name: 'partly checked', f: facts({ v: { matched: 10, unchecked: 3 } }), line: '13 orders, 0 mismatches, 3 not yet reconciled' },
    { name: 'pending is not all matched', f: facts({ v: { matched: 12, pending: 1 } }), line: '13 orders, 0 mismatches, 1 pending' },
    { name: 'an error is not all matched', f: facts({ v: { matched: 12, error: 1 } }), line: '13 orders, 0 mismatches, 1 error' },
    {
      name: 'a drift is not all matched',
      f: facts({ v: { matched: 2 }, drifts: [{ currency: 'NGN', drift: '-988425.00' }] }),
      line: '2 orders, 0 mismatches, NGN drift -988,425.00',
    },
    {
      name: 'a drift on a day without orders',
      f: facts({ drifts: [{ currency: 'INR', drift: '5.00' }] }),
      line: 'no orders, INR drift 5.00',
    },
    {
      name: 'earlier days after a semicolon',
      f: facts({ v: { matched: 2 }, openItems: 3, lateChanges: 1 }),
      line: '2 orders, all matched; 3 open items from earlier days, 1 late change',
    },
    { name: 'today', f: facts({ v: { unchecked: 4 }, partial: true }), line: 'day not over, so far: 4 orders not yet reconciled' },
    {
      name: 'an unknown order is a mismatch: never all matched',
      f: facts({ v: { matched: 2 }, unknownOrders: 1 }),
      line: '2 orders, 1 mismatch (1 unknown order)',
    },
    {
      name: 'unknown orders add to the orders own mismatches',
      f: facts({ v: { matched: 2, mismatch: 1 }, unknownOrders: 2 }),
      line: '3 orders, 3 mismatches (2 unknown orders)',
    },
    { name: 'an unknown order on a day without orders', f: facts({ unknownOrders: 1 }), line: 'no orders, 1 mismatch (1 unknown order)' },
    {
      name: 'an unknown order on a day nobody checked',
      f: facts({ v: { unchecked: 3 }, unknownOrders: 1 }),
      line: '3 orders not yet reconciled, 1 mismatch (1 unknown order)',
    },
    {
      name: 'a day without two balance snapshots is never all matched',
      f: facts({ v: { matched: 10 }, balancesNotChecked: 'all' }),
      line: '10 orders, 0 mismatches, balances not checked',
    },
    {
      name: 'one currency without two snapshots is named',
      f: facts({ v: { matched: 10 }, balancesNotChecked: ['NGN'] }),
      line: '10 orders, 0 mismatches, NGN balances not checked',
    },
    {
      name: 'every balance checked: all matched',
      f: facts({ v: { matched: 10 }, balancesNotChecked: [] }),
      line: '10 orders, all matched',
    },
    {
      name: 'balances not checked with mismatches: the mismatches say it',
      f: facts({ v: { matched: 1, mismatch: 1 }, balancesNotChecked: 'all' }),
      line: '2 orders, 1 mismatch',
    },
  ])('$name', ({ f, line }) => {
    expect(reportHeadline(f)).toBe(line);
  });
});
