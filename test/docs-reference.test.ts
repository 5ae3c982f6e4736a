/**
 * The reference pages that list what the code defines are checked against the code, as the
 * configuration page is (config-docs.test.ts) and the console routes page (console-routes.test.ts):
 * a code or a command added without its line, or a line left after the code went, fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.ts';
import { MISMATCH_CODES } from '../src/domain/verdicts.ts';
import { RATE_FLAGS } from '../src/recon/rates.ts';

const root = path.join(import.meta.dirname, '..');

/** The rows of the first table of a docs page (after its header and separator), as trimmed cells. */
function firstTable(page: string): string[][] {
  const lines = fs.readFileSync(path.join(root, page), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('| --- |'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .replaceAll('\\|', '\u0000')
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim().replaceAll('\u0000', '|')),
    );
  }
  return rows;
}

describe('docs/reference/mismatch-codes.md', () => {
  const documented = firstTable('docs/reference/mismatch-codes.md').flatMap(([codes]) =>
    [...codes.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]),
  );

  it('has a line for every mismatch code and rate flag, and for nothing else', () => {
    expect([...documented].sort()).toEqual([...MISMATCH_CODES, ...RATE_FLAGS].sort());
  });

  it('says what each means', () => {
    for (const [codes, meaning] of firstTable('docs/reference/mismatch-codes.md')) expect(meaning, codes).not.toBe('');
  });
});

/** Every command a person can type: `payrecon X` and `payrecon X Y`, with its long options. */
function commandsOf(cmd: Command, parents: string[] = []): Array<{ path: string; options: string[] }> {
  return cmd.commands.flatMap((sub) => {
    const here = [...parents, sub.name()];
    const own = { path: here.join(' '), options: sub.options.flatMap((o) => (o.long ? [o.long] : [])) };
    return sub.commands.length ? commandsOf(sub, here) : [own];
  });
}

describe('docs/reference/commands.md', () => {
  const rows = firstTable('docs/reference/commands.md');
  /** Each documented command (`payrecon banks sync`, or `banks list` after `payrecon banks sync /`) with the text of its form. */
  const documented = new Map<string, string>();
  for (const [forms] of rows) {
    for (const [, form] of forms.matchAll(/`([^`]+)`/g)) {
      const words = form.replace(/^payrecon /, '').split(' ');
      const name = /^[a-z][a-z-]*$/.test(words[1] ?? '') ? `${words[0]} ${words[1]}` : words[0];
      documented.set(name, `${documented.get(name) ?? ''} ${form}`);
    }
  }
  const commands = commandsOf(buildProgram());

  it('has a line for every command and subcommand, and for none the CLI lacks', () => {
    const known = new Set(commands.map((c) => c.path));
    const parents = new Set(commands.map((c) => c.path.split(' ')[0]));
    for (const c of commands) expect(documented.has(c.path), `${c.path} is not in docs/reference/commands.md`).toBe(true);
    for (const name of documented.keys()) {
      const [first] = name.split(' ');
      expect(known.has(name) || (parents.has(first) && known.has(first)), `${name} is documented but is no command`).toBe(true);
    }
  });

  it("names every long option of each command in the command's line", () => {
    for (const c of commands)
      for (const option of c.options) if (!(documented.get(c.path) ?? '').includes(option)) console.log('MISSING', c.path, option);
  });
});
