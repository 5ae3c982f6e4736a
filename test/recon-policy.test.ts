import { describe, expect, it } from 'vitest';
import { defaultPolicy, resolvePolicy } from '../src/recon/policy.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('defaultPolicy', () => {
  it('is exact, with the documented stale limits and backoff', () => {
    expect(defaultPolicy()).toEqual({
      tolerances: {},
      staleAfterMs: { payment: { pending: 24 * HOUR, unknown: 24 * HOUR }, payout: { pending: 72 * HOUR, unknown: 24 * HOUR } },
      backoffMs: { payment: [5 * MIN, 15 * MIN, HOUR, 6 * HOUR, 24 * HOUR], payout: [15 * MIN, HOUR, 6 * HOUR, 24 * HOUR] },
      firstCheckMs: { payment: 0, payout: 0 },
    });
  });

  it('returns a fresh object each time', () => {
    const a = defaultPolicy();
    a.staleAfterMs.payment.pending = 1;
    expect(defaultPolicy().staleAfterMs.payment.pending).toBe(24 * HOUR);
  });
});

describe('resolvePolicy', () => {
  it('applies overrides over defaults, leaving the rest', () => {
    const policy = resolvePolicy({
      tolerances: { INR: '0.01' },
      staleAfterMs: { payout: { pending: HOUR } },
      backoffMs: { payment: [MIN] },
    });
    expect(policy.tolerances).toEqual({ INR: '0.01' });
    expect(policy.staleAfterMs).toEqual({
      payment: { pending: 24 * HOUR, unknown: 24 * HOUR },
      payout: { pending: HOUR, unknown: 24 * HOUR },
    });
    expect(policy.backoffMs.payment).toEqual([MIN]);
    expect(policy.backoffMs.payout).toEqual([15 * MIN, HOUR, 6 * HOUR, 24 * HOUR]);
  });
});
