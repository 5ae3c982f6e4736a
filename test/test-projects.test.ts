/** Issue 26: vitest's projects (unit, database, e2e) are sorted from what each test file imports. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectOf, testFilesByProject } from './projects.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('test projects', () => {
  it('hold every test file exactly once', () => {
    const byProject = testFilesByProject(ROOT);
    const all = fs
      .readdirSync(path.join(ROOT, 'test'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f}`)
      .sort();
    expect([...byProject.unit, ...byProject.database, ...byProject.e2e].sort()).toEqual(all);
    expect(byProject.unit).toContain('test/test-projects.test.ts');
    expect(byProject.database).toContain('test/db-migrate.test.ts');
    expect(byProject.e2e).toContain('test/build.test.ts');
  });

  it('follow helpers transitively: through world.ts to the database, through cli.ts or child_process to e2e', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'projects-'));
    fs.mkdirSync(path.join(dir, 'test', 'helpers'), { recursive: true });
    const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, 'test', name), text);
    write('helpers/db.ts', `import pg from 'pg';\n`);
    write('helpers/world.ts', `import { createTestDatabase } from './db.ts';\n`);
    write('helpers/cli.ts', `import { spawn } from 'node:child_process';\n`);
    write('a.test.ts', `import { createWorld } from './helpers/world.ts';\n`);
    write('b.test.ts', `import { runCli } from './helpers/cli.ts';\nimport { createWorld } from './helpers/world.ts';\n`);
    write('c.test.ts', `import { execFileSync } from 'node:child_process';\n`);
    write('d.test.ts', `import { compareOrder } from '../src/recon/compare.ts';\n`);
    expect(testFilesByProject(dir)).toEqual({
      unit: ['test/d.test.ts'],
      database: ['test/a.test.ts'],
      e2e: ['test/b.test.ts', 'test/c.test.ts'],
    });
    expect(projectOf(path.join(dir, 'test', 'd.test.ts'))).toBe('unit');
  });
});
