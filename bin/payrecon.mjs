#!/usr/bin/env node
// From a checkout: runs the compiled build (dist/) when it is current, else the TypeScript sources
// through tsx (a dev dependency), so the command works right after `npm install` and starts fast
// after `npm run build`. Production runs the build directly: `node dist/src/main.js`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The build's start time (written by `npm run build` when it finished), or null without a whole build. */
function buildStarted() {
  try {
    const ms = Number(fs.readFileSync(path.join(root, 'dist/.build-stamp'), 'utf8'));
    return Number.isFinite(ms) && fs.existsSync(path.join(root, 'dist/src/main.js')) ? ms : null;
  } catch {
    return null;
  }
}

/** Whether any file under these paths changed since the build started (a few hundred stats: milliseconds). */
function changedSince(ms, paths) {
  for (const p of paths) {
    let stat;
    try {
      stat = fs.statSync(p);
    } catch {
      continue;
    }
    if (stat.mtimeMs >= ms) return true;
    if (
      stat.isDirectory() &&
      changedSince(
        ms,
        fs.readdirSync(p).map((n) => path.join(p, n)),
      )
    )
      return true;
  }
  return false;
}

const started = process.env.PAYRECON_FROM_SOURCE ? null : buildStarted();
const sources = ['src', 'sql', 'jobs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) => path.join(root, p));
if (started !== null && !changedSince(started, sources)) {
  await import(pathToFileURL(path.join(root, 'dist/src/main.js')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
