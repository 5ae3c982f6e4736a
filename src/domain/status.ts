import type { StatusCategory } from './types.ts';

/** Known provider strings. The spec shows only Initiated and Success; the rest are common siblings. */
export const DEFAULT_STATUS_MAP: Readonly<Record<string, StatusCategory>> = Object.freeze({
  initiated: 'pending',
  pending: 'pending',
  processing: 'pending',
  created: 'pending',
  success: 'success',
  successful: 'success',
  completed: 'success',
  failed: 'failed',
  failure: 'failed',
  rejected: 'failed',
  cancelled: 'failed',
  canceled: 'failed',
  expired: 'failed',
  reversed: 'failed',
});

export type StatusMapper = (status: string | undefined | null) => StatusCategory;

/** Case-insensitive mapping with configured overrides; an unseen string is `unknown`, never an error. */
export function createStatusMapper(overrides: Readonly<Record<string, StatusCategory>> = {}): StatusMapper {
  const table = new Map<string, StatusCategory>();
  for (const [k, v] of Object.entries(DEFAULT_STATUS_MAP)) table.set(k, v);
  for (const [k, v] of Object.entries(overrides)) table.set(k.trim().toLowerCase(), v);
  return (status) => (typeof status === 'string' ? (table.get(status.trim().toLowerCase()) ?? 'unknown') : 'unknown');
}

/** The status strings a mapper with these overrides knows (lower case, as matched), for --help and warnings. */
export function knownStatusStrings(overrides: Readonly<Record<string, StatusCategory>> = {}): string[] {
  return [...new Set([...Object.keys(DEFAULT_STATUS_MAP), ...Object.keys(overrides).map((k) => k.trim().toLowerCase())])];
}

export const isFinalCategory = (c: StatusCategory): boolean => c === 'success' || c === 'failed';
