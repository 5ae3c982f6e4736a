/** The sandbox's probabilistic faults (used by bench/soak.ts for 1% injected faults over a million orders). */
import { describe, expect, it } from 'vitest';
import { FaultRegistry } from '../src/sandbox/faults.ts';

function hits(registry: FaultRegistry, requests: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < requests; i++) {
    const m = registry.match('paymentFetch', { transactionRef: `ref-${i}` });
    if (m.fault) out.push(`ref-${i}`);
  }
  return out;
}

describe('sandbox fault probability', () => {
  it('hits about the given share of matching requests, and the same ones for the same faults', () => {
    const a = new FaultRegistry();
    a.add({ kind: 'status500', probability: 0.01 });
    const b = new FaultRegistry();
    b.add({ kind: 'status500', probability: 0.01 });
    const first = hits(a, 100_000);
    expect(first.length).toBeGreaterThan(850);
    expect(first.length).toBeLessThan(1150);
    expect(hits(b, 100_000)).toEqual(first);
  });

  it('only draws for requests the other matchers accept, and counts down like any fault', () => {
    const r = new FaultRegistry();
    r.add({ kind: 'timeout', probability: 1, operations: ['payoutFetch'], count: 2 });
    expect(r.match('paymentFetch', { transactionRef: 'x' }).fault).toBeUndefined();
    expect(r.match('payoutFetch', { transactionRef: 'x' }).fault?.kind).toBe('timeout');
    expect(r.match('payoutFetch', { transactionRef: 'y' }).fault?.kind).toBe('timeout');
    expect(r.match('payoutFetch', { transactionRef: 'z' }).fault).toBeUndefined();
  });

  it('without a probability every matching request is hit', () => {
    const r = new FaultRegistry();
    r.add({ kind: 'status500' });
    expect(hits(r, 1000)).toHaveLength(1000);
  });

  it.each([0, -0.1, 1.5, Number.NaN, '0.5'])('rejects probability %s', (p) => {
    expect(() => new FaultRegistry().add({ kind: 'status500', probability: p as number })).toThrow(/probability/);
  });
});
