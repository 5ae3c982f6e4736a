// The compiled build (npm run build, run by npm test before vitest) is what production runs:
// plain node, no tsx, migrations found beside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';
import { skipping } from './helpers/skips.ts';

const MAIN = path.join(ROOT, 'dist/src/main.js');
const built = fs.existsSync(MAIN);

describe.skipIf(!built && skipping('no dist/: run npm run build', 'the compiled build runs'))('the compiled build', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-build-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [MAIN, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', PGLITE_DIR: path.join(dir, 'pglite'), REPORT_DIR: path.join(dir, 'reports') },
      encoding: 'utf8',
    });

  it('runs with plain node: --version', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('migrates an embedded database from the sql/ copied into dist/', () => {
    const r = run(['migrate', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { applied: string[] };
    expect(out.applied).toEqual(
      fs
        .readdirSync(path.join(ROOT, 'sql'))
        .filter((f) => /^\d{3}_.*\.sql$/.test(f))
        .sort(),
    );
  });

  it('imports nothing from tsx', () => {
    const sources = fs.readdirSync(path.join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    expect(sources.length).toBeGreaterThan(0);
    for (const f of sources) expect(fs.readFileSync(path.join(ROOT, 'dist', f), 'utf8'), f).not.toMatch(/from ['"]tsx/);
  });
});
