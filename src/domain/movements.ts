/**
 * Money moved into or out of the provider wallet that no order explains (issue 38). A top-up always
 * comes in and a withdrawal always goes out; the provider's adjustments and charges may go either way.
 */
export const MOVEMENT_KINDS = ['top_up', 'withdrawal', 'adjustment', 'charge'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

export const MOVEMENT_DIRECTIONS = ['in', 'out'] as const;
export type MovementDirection = (typeof MOVEMENT_DIRECTIONS)[number];

/** The direction a kind requires, or null when either is possible. */
export const KIND_DIRECTION: Readonly<Record<MovementKind, MovementDirection | null>> = {
  top_up: 'in',
  withdrawal: 'out',
  adjustment: null,
  charge: null,
};

/**
 * Whether `name` is the person who recorded the movement (maker-checker). Names are compared without
 * case or surrounding spaces: the command line records under whatever --as says ("Fiona"), the console
 * under its lower-case user names ("fiona"), and the two are the same person.
 */
export function isMaker(m: { recordedBy: string }, name: string): boolean {
  const key = (s: string) => s.trim().toLowerCase();
  return key(m.recordedBy) === key(name);
}
