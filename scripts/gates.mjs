// `npm test`'s checks before vitest: the package.json scripts named as arguments, all at once.
// Each is a single-threaded tool, so on two cores side by side they take about half the time
// they take one after another. A gate's output is printed only when it fails (a passing run is
// one line per gate); the exit status is 1 when any gate failed, after all have finished.
//   node scripts/gates.mjs typecheck lint format:check knip deps build
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const names = process.argv.slice(2);
const unknown = names.filter((n) => !scripts[n]);
if (names.length === 0 || unknown.length) {
  console.error(
    `usage: node scripts/gates.mjs SCRIPT...  (package.json scripts${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''})`,
  );
  process.exit(2);
}

// The script's own text through a shell, as npm runs it, without npm's start-up per gate.
const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}` };

/** Runs one script; resolves with its exit status, seconds and interleaved output. */
function run(name) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(scripts[name], { cwd: root, env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? 1, signal, seconds: (performance.now() - started) / 1000, output: Buffer.concat(output).toString() }),
    );
  });
}

const results = await Promise.all(
  names.map(async (name) => {
    const r = await run(name);
    const how = r.code === 0 ? 'ok' : r.signal ? `FAILED (${r.signal})` : `FAILED (exit ${r.code})`;
    console.log(`${r.name}: ${how} in ${r.seconds.toFixed(1)} s`);
    if (r.code !== 0) process.stdout.write(`\n--- ${r.name} (${scripts[r.name]}) ---\n${r.output}\n`);
    return r;
  }),
);
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
