/** What a report version's record says about its removal by the retention (`payrecon prune`). */
export interface VersionRemoval {
  businessDate: string;
  version: number;
  removedAt: Date | null;
  archivedTo: string | null;
}

/**
 * The sentence the console and `report --resend` give for a version whose files the retention removed,
 * instead of failing on a missing folder; null while the version is on disk.
 */
export function removedVersionSentence(v: VersionRemoval): string | null {
  if (!v.removedAt) return null;
  const removed = `version ${v.version} of ${v.businessDate} was removed by retention on ${v.removedAt.toISOString().slice(0, 10)}`;
  return v.archivedTo ? `${removed}; it was archived in ${v.archivedTo}` : removed;
}
