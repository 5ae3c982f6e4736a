import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--wait 90s`, `10m`, `1h`, `0` (a bare number is seconds), as milliseconds; at most a day. */
export function parseWait(value: string): number {
  const m = /^(\d{1,6})(ms|s|m|h)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNITS[m[2] ?? 's'] : NaN;
  if (!Number.isFinite(ms) || ms > 86_400_000) {
    throw new InvalidArgumentError('expected a duration such as 90s, 10m, 1h or 0 (at most 24h)');
  }
  return ms;
}
