import { describe, expect, it } from 'vitest';
import {
  ageBucket,
  checkCouldSee,
  decideCase,
  orderCheckEvents,
  parseAge,
  type CaseDecision,
  type CaseEvent,
  type CaseView,
} from '../src/recon/cases.ts';
import { caseSummary, orderCaseCells } from '../src/recon/case-figures.ts';

const open: CaseView = { state: 'open', resolution: null };
const acked: CaseView = { state: 'acknowledged', resolution: null };
const resolvedBy = (resolution: CaseView['resolution']): CaseView => ({ state: 'resolved', resolution });

const finding: CaseEvent = { kind: 'finding' };
const consistent: CaseEvent = { kind: 'consistent' };
const ack = (actor = 'asha', note = ''): CaseEvent => ({ kind: 'acknowledge', actor, note });
const resolve = (reason: string, note = 'done', actor = 'asha'): CaseEvent => ({ kind: 'resolve', actor, reason, note });

const move = (from: CaseView['state'] | null, to: CaseView['state'], reason: string | null, actor: string) => ({
  kind: from === null ? 'open' : 'move',
  transition: expect.objectContaining({ from, to, reason, actor }),
});

const TABLE: Array<{ name: string; current: CaseView | null; event: CaseEvent; expected: CaseDecision | Record<string, unknown> }> = [
  { name: 'a first finding opens a case', current: null, event: finding, expected: move(null, 'open', null, 'payrecon') },
  { name: 'a consistent check with no case records nothing', current: null, event: consistent, expected: { kind: 'none' } },
  {
    name: 'acknowledging a case that does not exist is refused',
    current: null,
    event: ack(),
    expected: { kind: 'refused', message: 'no such case' },
  },
  { name: 'the finding again on an open case: seen', current: open, event: finding, expected: { kind: 'seen' } },
  {
    name: 'the finding again on an acknowledged case: seen, still acknowledged',
    current: acked,
    event: finding,
    expected: { kind: 'seen' },
  },
  {
    name: 'a consistent recheck clears an open case',
    current: open,
    event: consistent,
    expected: move('open', 'resolved', 'cleared-by-recheck', 'payrecon'),
  },
  {
    name: 'a consistent recheck clears an acknowledged case',
    current: acked,
    event: consistent,
    expected: move('acknowledged', 'resolved', 'cleared-by-recheck', 'payrecon'),
  },
  {
    name: 'a consistent recheck of a resolved case records nothing',
    current: resolvedBy('adjusted'),
    event: consistent,
    expected: { kind: 'none' },
  },
  {
    name: 'a resolved case whose finding comes back is reopened',
    current: resolvedBy('provider-corrected'),
    event: finding,
    expected: move('resolved', 'open', 'recurred', 'payrecon'),
  },
  {
    name: 'a case cleared by recheck whose finding comes back is reopened',
    current: resolvedBy('cleared-by-recheck'),
    event: finding,
    expected: move('resolved', 'open', 'recurred', 'payrecon'),
  },
  {
    name: 'a written-off case stays resolved while its finding persists',
    current: resolvedBy('written-off'),
    event: finding,
    expected: { kind: 'seen' },
  },
  {
    name: 'a person acknowledges an open case',
    current: open,
    event: ack('asha', 'looking'),
    expected: move('open', 'acknowledged', null, 'asha'),
  },
  {
    name: 'acknowledging twice is refused',
    current: acked,
    event: ack(),
    expected: { kind: 'refused', message: 'case is already acknowledged' },
  },
  {
    name: 'acknowledging a resolved case is refused',
    current: resolvedBy('duplicate'),
    event: ack(),
    expected: { kind: 'refused', message: 'case is resolved; nothing to acknowledge' },
  },
  {
    name: 'a person resolves an open case',
    current: open,
    event: resolve('adjusted'),
    expected: move('open', 'resolved', 'adjusted', 'asha'),
  },
  {
    name: 'a person resolves an acknowledged case as written off',
    current: acked,
    event: resolve('written-off'),
    expected: move('acknowledged', 'resolved', 'written-off', 'asha'),
  },
  ...(['provider-corrected', 'duplicate', 'false-positive', 'other'] as const).map((reason) => ({
    name: `reason ${reason} is accepted`,
    current: open,
    event: resolve(reason),
    expected: move('open', 'resolved', reason, 'asha'),
  })),
  {
    name: 'a person cannot claim cleared-by-recheck',
    current: open,
    event: resolve('cleared-by-recheck'),
    expected: { kind: 'refused', message: expect.stringContaining('reason must be one of provider-corrected') },
  },
  {
    name: 'resolving without a note is refused',
    current: open,
    event: resolve('adjusted', '  '),
    expected: { kind: 'refused', message: 'a note is required: say what was done' },
  },
  {
    name: 'resolving a resolved case is refused',
    current: resolvedBy('written-off'),
    event: resolve('adjusted'),
    expected: { kind: 'refused', message: 'case is already resolved (written-off)' },
  },
  {
    name: 'a person action without an actor is refused',
    current: open,
    event: resolve('adjusted', 'done', ' '),
    expected: { kind: 'refused', message: expect.stringContaining('an actor is required') },
  },
];

describe('decideCase', () => {
  it.each(TABLE)('$name', ({ current, event, expected }) => {
    expect(decideCase(current, event)).toEqual(expected);
  });

  it('keeps the note a person gave', () => {
    const d = decideCase(open, resolve('adjusted', 'credited 12.50 in the ledger'));
    expect(d.kind === 'move' && d.transition.note).toBe('credited 12.50 in the ledger');
  });
});

describe('orderCheckEvents', () => {
  const cases: Array<{
    name: string;
    found: string[];
    unresolved: string[];
    visibility: 'found' | 'not_found' | 'error';
    expected: string[];
  }> = [
    {
      name: 'new findings open',
      found: ['FEE', 'PAID_AMOUNT'],
      unresolved: [],
      visibility: 'found',
      expected: ['finding FEE', 'finding PAID_AMOUNT'],
    },
    {
      name: 'a code gone from a found order clears',
      found: ['FEE'],
      unresolved: ['FEE', 'PAID_AMOUNT'],
      visibility: 'found',
      expected: ['finding FEE', 'consistent PAID_AMOUNT'],
    },
    { name: 'a provider error clears nothing', found: [], unresolved: ['FEE', 'STALE'], visibility: 'error', expected: [] },
    {
      name: 'not found clears only what needs no provider order',
      found: ['NOT_FOUND'],
      unresolved: ['FEE', 'STALE'],
      visibility: 'not_found',
      expected: ['finding NOT_FOUND', 'consistent STALE'],
    },
    {
      name: 'NOT_FOUND clears once the provider finds the order',
      found: [],
      unresolved: ['NOT_FOUND'],
      visibility: 'found',
      expected: ['consistent NOT_FOUND'],
    },
    {
      name: 'drift and unknown orders are not an order check’s to clear',
      found: [],
      unresolved: ['UNKNOWN_ORDER'],
      visibility: 'found',
      expected: [],
    },
  ];
  it.each(cases)('$name', ({ found, unresolved, visibility, expected }) => {
    expect(orderCheckEvents(found, unresolved, visibility).map((e) => `${e.event.kind} ${e.code}`)).toEqual(expected);
  });

  it('checkCouldSee: a STALE order seen pending at the provider can be cleared', () => {
    expect(checkCouldSee('STALE', 'found')).toBe(true);
    expect(checkCouldSee('AMOUNT', 'not_found')).toBe(false);
  });
});

describe('ages', () => {
  const now = new Date('2026-11-22T18:00:00Z');
  it.each([
    ['opened an hour ago', 3_600_000, '<1d'],
    ['exactly one day', 86_400_000, '1-3d'],
    ['five days', 5 * 86_400_000, '3-7d'],
    ['ten days', 10 * 86_400_000, '>7d'],
  ])('ageBucket: %s', (_name, ms, bucket) => {
    expect(ageBucket(new Date(now.getTime() - ms), now)).toBe(bucket);
  });

  it('parseAge reads m, h and d, and names the shape it wants', () => {
    expect(parseAge('3d')).toBe(3 * 86_400_000);
    expect(parseAge('12h')).toBe(12 * 3_600_000);
    expect(parseAge('30m')).toBe(30 * 60_000);
    expect(() => parseAge('3 days')).toThrow('expected a duration like 30m, 12h or 3d (got "3 days")');
  });
});

describe('case figures for reports', () => {
  const now = new Date('2026-11-22T18:15:00Z');
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
  const c = (id: string, state: CaseView['state'], resolution: CaseView['resolution'], age: number) => ({
    id,
    state,
    resolution,
    openedAt: daysAgo(age),
  });

  it.each([
    { name: 'no case', cases: [], expected: { caseIds: '', caseState: '', caseAgeDays: null } },
    {
      name: 'one open case, two and a half days old',
      cases: [c('7', 'open', null, 2.5)],
      expected: { caseIds: '7', caseState: 'open', caseAgeDays: 2 },
    },
    {
      name: 'open wins over acknowledged; the age is the oldest unresolved',
      cases: [c('12', 'acknowledged', null, 5), c('9', 'open', null, 1)],
      expected: { caseIds: '9 12', caseState: 'open', caseAgeDays: 5 },
    },
    {
      name: 'written off reads as such, no age',
      cases: [c('3', 'resolved', 'written-off', 9)],
      expected: { caseIds: '3', caseState: 'written off', caseAgeDays: null },
    },
    {
      name: 'written off outranks an ordinary resolution',
      cases: [c('3', 'resolved', 'adjusted', 9), c('4', 'resolved', 'written-off', 9)],
      expected: { caseIds: '3 4', caseState: 'written off', caseAgeDays: null },
    },
    {
      name: 'cleared by recheck',
      cases: [c('5', 'resolved', 'cleared-by-recheck', 1)],
      expected: { caseIds: '5', caseState: 'resolved', caseAgeDays: null },
    },
  ])('orderCaseCells: $name', ({ cases, expected }) => {
    expect(orderCaseCells(cases, now)).toEqual(expected);
  });

  it('caseSummary: opened (reopened among them), resolved by reason, still open by age, per currency in the configured order', () => {
    const rows = caseSummary(
      [
        { currency: 'NGN', toState: 'open', reason: null, reopened: false, count: 4 },
        { currency: 'NGN', toState: 'open', reason: 'recurred', reopened: true, count: 1 },
        { currency: 'NGN', toState: 'resolved', reason: 'written-off', reopened: false, count: 2 },
        { currency: 'NGN', toState: 'resolved', reason: 'cleared-by-recheck', reopened: false, count: 3 },
        { currency: 'INR', toState: 'resolved', reason: 'adjusted', reopened: false, count: 1 },
      ],
      [
        { currency: 'NGN', openedAt: daysAgo(0.5) },
        { currency: 'NGN', openedAt: daysAgo(4) },
        { currency: 'IDR', openedAt: daysAgo(10) },
      ],
      ['INR', 'NGN', 'IDR'],
      now,
    );
    expect(rows.map((r) => r.currency)).toEqual(['INR', 'NGN', 'IDR']);
    expect(rows[1]).toEqual({
      currency: 'NGN',
      opened: 5,
      reopened: 1,
      resolved: {
        'provider-corrected': 0,
        adjusted: 0,
        'written-off': 2,
        duplicate: 0,
        'false-positive': 0,
        other: 0,
        'cleared-by-recheck': 3,
      },
      stillOpen: { '<1d': 1, '1-3d': 0, '3-7d': 1, '>7d': 0 },
    });
    expect(rows[0].resolved.adjusted).toBe(1);
    expect(rows[2].stillOpen['>7d']).toBe(1);
  });
});
