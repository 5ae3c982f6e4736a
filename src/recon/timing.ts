import type { Direction, StatusCategory } from '../domain/types.ts';
import type { ReconPolicy } from './types.ts';

/** Delay before the next check: one step per check already made, the last step repeating. */
export function nextCheckDelayMs(policy: ReconPolicy, direction: Direction, checkCount: number): number {
  const steps = policy.backoffMs[direction];
  const index = Math.min(Math.max(0, Math.floor(checkCount)), steps.length - 1);
  return steps[index];
}

/** Age limit for a not-final category; final categories never go stale. */
export function staleLimit(policy: ReconPolicy, direction: Direction, category: StatusCategory): number | null {
  if (category === 'pending' || category === 'unknown') return policy.staleAfterMs[direction][category];
  return null;
}

/** "25h", "90m", "3d": the coarsest unit that still reads true enough for a report. */
export function describeDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 72) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}
