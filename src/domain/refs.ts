/**
 * Order refs: a UUID is one value whatever the case of its hex digits (RFC 4122 reads either and writes
 * lower case), so payrecon stores and compares UUID refs in lower case (sql/010_canonical_refs.sql does the
 * same in the database). A ref that is not a UUID is an opaque string, kept and compared as written.
 */
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

export function canonicalRef(ref: string): string {
  return UUID.test(ref) ? ref.toLowerCase() : ref;
}

/** Equal as refs: surrounding spaces ignored, UUIDs compared case-insensitively. */
export function sameRef(a: string, b: string | undefined | null): boolean {
  // The same text is the same ref (every answer echoes the ref asked for): no trim, no pattern.
  if (a === b) return true;
  return typeof b === 'string' && canonicalRef(a.trim()) === canonicalRef(b.trim());
}
