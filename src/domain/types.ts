/** Decimal amounts travel as canonical decimal text ("100.1"), never as JavaScript numbers. */
export type Amount = string;

/** payrecon's own status categories; provider strings map into these (see status.ts). */
export type StatusCategory = 'pending' | 'success' | 'failed' | 'unknown';

export type Direction = 'payment' | 'payout';
