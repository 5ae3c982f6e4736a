import { PATHS, type Operation } from '../provider/types.ts';

/** Provider requests received per operation (including ones refused by auth or faults). */
export class RequestStats {
  private counts = RequestStats.zero();
  private total = 0;

  private static zero(): Record<Operation, number> {
    return Object.fromEntries(Object.keys(PATHS).map((k) => [k, 0])) as Record<Operation, number>;
  }

  count(op: Operation): void {
    this.counts[op]++;
    this.total++;
  }

  snapshot(): Record<Operation, number> & { total: number } {
    return { ...this.counts, total: this.total };
  }

  reset(): void {
    this.counts = RequestStats.zero();
    this.total = 0;
  }
}
