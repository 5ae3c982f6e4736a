// The drift simulation (issue 12): 48 simulated hours of the sandbox per seed, reconcile every 15
// minutes, snapshots hourly, the provider clock jumping between calls, one planted balance
// adjustment. `node --import tsx bench/drift-sim.ts --seeds 20` runs the full set and prints figures.
import { describe, expect, it } from 'vitest';
import { requiresServer } from './helpers/db.ts';
import { simulateDrift } from './helpers/drift-sim.ts';

const NEEDS = 'the sweep and the snapshot job take the reconcile lock on separate connections at once';
const SEEDS = [3, 7];

describe.skipIf(requiresServer(NEEDS))('settlement roll-forward over 48 simulated hours', () => {
  it.each(SEEDS)(
    'seed %i: no false drift; the planted adjustment is found once, exactly, in its window, and not reversed',
    async (seed) => {
      const r = await simulateDrift({ seed, hours: 48, orders: 30 });
      // 3 currencies, 49 snapshots each (one at the start, then hourly): 48 windows per currency.
      expect(r.windows).toBe(3 * 48);
      expect(r.falseDrifts).toEqual([]);
      expect(r.plantedWindows).toHaveLength(1);
      expect(r.plantedFound).toBe(true);
    },
    900_000,
  );
});
