import { describe, expect, it } from 'vitest';
import { sampleWarmSplit, steadyCpuUs } from '../bench/lib/warm-split.ts';

describe('the reconcile bench: fixed costs apart from the steady state', () => {
  it.each([
    ['no split: the run never reached it', 7.5, 100_000, null, null],
    ['split at a fifth: the CPU after it per order after it', 7.4, 100_000, { checked: 20_000, cpuSeconds: 2.44 }, 62],
    ['split at the end: nothing after it', 7.4, 100_000, { checked: 100_000, cpuSeconds: 7.3 }, null],
  ] as const)('%s', (_name, total, orders, split, expected) => {
    expect(steadyCpuUs(total, orders, split)).toBe(expected);
  });

  it('keeps the first sample at or past `from`, with the CPU read before the count', async () => {
    const counts = [null, 500, 1500, 3000];
    let cpuReads = 0;
    let countReads = 0;
    const sampler = sampleWarmSplit({
      cpuSeconds: () => ++cpuReads * 0.5,
      checked: async () => counts[Math.min(countReads++, counts.length - 1)],
      from: 1000,
      everyMs: 2,
    });
    // Poll until the sample of 1500 was taken (it stops sampling once it has its split).
    while (countReads < 3) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    expect(sampler.stop()).toEqual({ checked: 1500, cpuSeconds: 1.5 });
    expect(countReads).toBe(3);
  });
});
