/**
 * Which vitest project each test file belongs to, read from what it imports, so a new file lands in
 * the right one without a list to keep up to date:
 *   e2e      - starts processes or a browser (helpers/cli.ts, helpers/browser.ts, node:child_process);
 *   database - otherwise, reaches helpers/db.ts, directly or through another helper;
 *   unit     - everything else: no database, no child process.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Project = 'unit' | 'database' | 'e2e';

// Import statements only (at the start of a line), not strings that merely mention a module.
const RELATIVE_IMPORT = /^(?:import|export)\s[^;]*?'(\.{1,2}\/[^']+)'/gm;
const PROCESS_OR_BROWSER = /^import\s[^;]*?'(?:(?:node:)?child_process|[^']*helpers\/(?:cli|browser)\.ts)'/m;

/** The files a file imports by relative path (its own helpers), resolved. */
function localImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(RELATIVE_IMPORT)].map((m) => path.resolve(path.dirname(file), m[1])).filter((f) => f.includes('/test/'));
}

/** True when file, or a test helper it imports (transitively), matches test. */
function reaches(file: string, test: (text: string, file: string) => boolean, seen = new Set<string>()): boolean {
  if (seen.has(file) || !fs.existsSync(file)) return false;
  seen.add(file);
  if (test(fs.readFileSync(file, 'utf8'), file)) return true;
  return localImports(file).some((f) => reaches(f, test, seen));
}

export function projectOf(file: string): Project {
  if (reaches(file, (text) => PROCESS_OR_BROWSER.test(text))) return 'e2e';
  if (reaches(file, (_, f) => f.endsWith(`${path.sep}helpers${path.sep}db.ts`))) return 'database';
  return 'unit';
}

/** Test files (paths relative to root) by project. */
export function testFilesByProject(root: string): Record<Project, string[]> {
  const out: Record<Project, string[]> = { unit: [], database: [], e2e: [] };
  const dir = path.join(root, 'test');
  for (const name of fs.readdirSync(dir).sort()) {
    if (name.endsWith('.test.ts')) out[projectOf(path.join(dir, name))].push(`test/${name}`);
  }
  return out;
}
