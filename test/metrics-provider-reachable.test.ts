// payrecon_provider_reachable is the latest request's answer, whichever operation it was: in the
// fault run of issue 40 a per-operation gauge kept paymentFetch at 1 (its last call answered before the
// outage, none since) while every payoutFetch failed, and PayreconProviderDown never fired.
import { describe, expect, it } from 'vitest';
import { PayreconMetrics } from '../src/metrics/metrics.ts';

const reachable = async (m: PayreconMetrics) => (await m.registry.getSingleMetric('payrecon_provider_reachable')!.get()).values;

describe('payrecon_provider_reachable', () => {
  it('is absent before the first request, then one sample: the latest answer', async () => {
    const m = new PayreconMetrics({ defaultMetrics: false });
    expect(await reachable(m)).toEqual([]);
    m.providerRequest('paymentFetch', '200', 0.01);
    m.providerRequest('payoutFetch', 'network', 0.01);
    expect(await reachable(m)).toEqual([expect.objectContaining({ labels: { operation: 'payoutFetch' }, value: 0 })]);
    m.providerRequest('payoutFetch', '503', 0.01);
    m.providerRequest('balance', '429', 0.01);
    m.providerRequest('rate', 'timeout', 0.01);
    expect((await reachable(m)).map((v) => v.value)).toEqual([0]);
    m.providerRequest('paymentFetch', '200', 0.01);
    expect(await reachable(m)).toEqual([expect.objectContaining({ labels: { operation: 'paymentFetch' }, value: 1 })]);
  });
});
