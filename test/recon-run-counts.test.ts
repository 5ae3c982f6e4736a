import { describe, expect, it } from 'vitest';
import { codeCounts, countCheck, countCode, tallyCounts, verdictCounts, type RunCounts } from '../src/recon/run-counts.ts';

describe('run counts: the stored keys, spelt in one place', () => {
  it('counts each checked order once per verdict and once per code, under verdict:/code: keys', () => {
    const counts: RunCounts = {};
    countCheck(counts, 'mismatch', ['FEE', 'STALE']);
    countCheck(counts, 'mismatch', ['FEE', 'FEE']);
    countCheck(counts, 'resolved', []);
    countCode(counts, 'BALANCE_DRIFT', 0);
    expect(counts).toEqual({ 'verdict:mismatch': 2, 'verdict:resolved': 1, 'code:FEE': 2, 'code:STALE': 1, 'code:BALANCE_DRIFT': 0 });
  });

  it('reads back every verdict in order (zeros included), the codes by name, and a tally without codes', () => {
    const counts: RunCounts = { 'verdict:mismatch': 2, 'verdict:resolved': 1, 'code:STALE': 1, 'code:FEE': 2, balances: 3, failed: 0 };
    expect(verdictCounts(counts)).toEqual([
      ['matched', 0],
      ['resolved', 1],
      ['pending', 0],
      ['mismatch', 2],
      ['error', 0],
    ]);
    expect(codeCounts(counts)).toEqual([
      ['FEE', 2],
      ['STALE', 1],
    ]);
    expect(tallyCounts(counts)).toEqual([
      ['balances', 3],
      ['mismatch', 2],
      ['resolved', 1],
    ]);
  });
});
