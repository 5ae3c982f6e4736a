// bin/payrecon.mjs runs dist/ when the build is current, else the sources through tsx: tried on a
// throw-away copy of the bin with a stand-in build and stand-in sources that say which one ran.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.ts';

describe('bin/payrecon.mjs chooses the build when it is current', () => {
  let root: string;
  const run = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [path.join(root, 'bin/payrecon.mjs')], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  const setMtime = (rel: string, ms: number) => fs.utimesSync(path.join(root, rel), ms / 1000, ms / 1000);

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-bin-'));
    write('bin/payrecon.mjs', fs.readFileSync(path.join(ROOT, 'bin/payrecon.mjs'), 'utf8'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    write('dist/src/main.js', "console.log('from dist');\n");
    write('src/main.ts', "const from: string = 'from source';\nconsole.log(from);\n");
    write('sql/001_x.sql', 'SELECT 1;\n');
    write('package.json', '{ "type": "module" }\n');
    const past = Date.now() - 60_000;
    for (const rel of ['src/main.ts', 'src', 'sql/001_x.sql', 'sql', 'package.json']) setMtime(rel, past);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('no build stamp (npm run build never finished): the sources', () => {
    const r = run();
    expect(r.stdout, r.stderr).toBe('from source\n');
  });

  it('a stamp newer than every source file: the build', () => {
    write('dist/.build-stamp', String(Date.now() - 30_000));
    expect(run().stdout).toBe('from dist\n');
    expect(run({ PAYRECON_FROM_SOURCE: '1' }).stdout).toBe('from source\n');
  });

  it('a source or migration changed since the build started: the sources again', () => {
    setMtime('sql/001_x.sql', Date.now());
    expect(run().stdout).toBe('from source\n');
    setMtime('sql/001_x.sql', Date.now() - 60_000);
    expect(run().stdout).toBe('from dist\n');
    write('src/new-file.ts', 'export {};\n');
    expect(run().stdout).toBe('from source\n');
  });
});
