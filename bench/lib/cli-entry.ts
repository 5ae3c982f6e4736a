import fs from 'node:fs';
import path from 'node:path';

/**
 * The payrecon entry a bench runs its processes from (`--cli`): the compiled build (`dist`, what
 * production and the Docker image run) or the sources through tsx (`tsx`, as bin/payrecon.mjs does from a checkout).
 */
export function cliEntry(root: string, cli: string | undefined): string {
  const entries: Record<string, string> = {
    dist: path.join(root, 'dist', 'src', 'main.js'),
    tsx: path.join(root, 'bin', 'payrecon.mjs'),
  };
  const entry = cli === undefined ? undefined : entries[cli];
  if (!entry) throw new Error(`--cli: expected dist or tsx (got ${cli})`);
  if (!fs.existsSync(entry)) throw new Error(`${path.relative(root, entry)} is missing: run npm run build first, or pass --cli tsx`);
  return entry;
}
