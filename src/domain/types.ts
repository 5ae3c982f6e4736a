/** Decimal amounts travel as canonical decimal text ("100.1"), never as JavaScript numbers. */
export type Amount = string;

/** payrecon's own status categories; provider strings map into these (see status.ts). */
export const STATUS_CATEGORIES = ['pending', 'success', 'failed', 'unknown'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

export const DIRECTIONS = ['payment', 'payout'] as const;
export type Direction = (typeof DIRECTIONS)[number];
