// Provider text (statuses, bank names, reasons) reaches the operator's terminal: escape sequences in it
// must arrive as visible text, never as commands to the terminal (colours, clearing the screen, moving
// the cursor to paint "ALL RECONCILED OK" over the real result).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runCli, type CliResult } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { sanitizeForTerminal } from '../src/log/terminal.ts';

const RED_STATUS = '\u001b[31mRED\u001b[0m';
const BIDI_STATUS = 'Settled\u202e KO LLA';
const BIDI_BANK_NAME = '\u2067ALL RECONCILED OK\u2069 Bank';
const CLEAR_SCREEN_NAME = '\u001b[2J\u001b[H\u001b]0;title\u0007ALL RECONCILED OK\u009b2J\u202eevil';
/** Control characters a terminal acts on: C0 except tab and newline, DEL, C1, and bidi overrides. */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('sanitizeForTerminal', () => {
  it.each([
    ['colour codes', RED_STATUS, '\\u001b[31mRED\\u001b[0m'],
    [
      'clear screen, OSC title, C1 CSI, bidi override',
      CLEAR_SCREEN_NAME,
      '\\u001b[2J\\u001b[H\\u001b]0;title\\u0007ALL RECONCILED OK\\u009b2J\\u202eevil',
    ],
    ['carriage return overwriting a line', 'ok\rFAKE', 'ok\\u000dFAKE'],
    ['tabs and newlines kept', 'a\tb\nc', 'a\tb\nc'],
    ['plain and non-Latin text untouched', 'Bank Négara Indonesia ₹ 1,250.00', 'Bank Négara Indonesia ₹ 1,250.00'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeForTerminal(input)).toBe(expected);
  });

  it('keeps JSON valid and equal after parsing (escapes JSON.stringify leaves raw)', () => {
    const json = JSON.stringify({ name: '\u009b2J\u202e' });
    expect(JSON.parse(sanitizeForTerminal(json))).toEqual(JSON.parse(json));
    expect(sanitizeForTerminal(json)).not.toMatch(ACTIVE);
  });
});

describe.skipIf(requiresServer('child payrecon processes share the test database with this process'))(
  'provider text on the terminal',
  () => {
    let world: World;
    let refs: string[];
    const today = new Date().toISOString().slice(0, 10);

    beforeAll(async () => {
      world = await createWorld('terminal_escapes');
      const seeded = await seedMerchant(world.t.db.knex, world.client, { payments: 6, payouts: 0, seed: 5 });
      refs = seeded.map((o) => o.transactionRef);
      await world.control.advanceClock(2_000);
      const first = await runCli(['reconcile', '--date', today], world.env);
      expect(first.code, first.stderr).toBe(0);
      // Refused where parsed (an error item); its reason is printed sanitised wherever it shows.
      await world.control.setOrder(refs[1], { status: RED_STATUS });
      // Passes that check, yet reorders what a terminal shows.
      await world.control.setOrder(refs[0], { status: BIDI_STATUS });
      await world.control.setBank('NGN', '999', BIDI_BANK_NAME);
    }, 120_000);
    afterAll(() => world?.close());

    const clean = (r: CliResult, what: string) => {
      expect(r.stdout, `${what} stdout`).not.toMatch(ACTIVE);
      expect(r.stderr, `${what} stderr`).not.toMatch(ACTIVE);
    };

    it("reconcile's first mismatches show the provider's status as visible text", async () => {
      const r = await runCli(['reconcile', '--date', today], world.env);
      clean(r, 'reconcile');
      expect(r.stdout).toContain('first mismatches');
      expect(r.stdout).toContain('Settled\\u202e KO LLA');
    });

    it('banks list shows a bank name with escapes as visible text; --json stays valid', async () => {
      expect((await runCli(['banks', 'sync'], world.env)).code).toBe(0);
      const table = await runCli(['banks', 'list', '--currency', 'NGN', '--search', '999'], world.env);
      clean(table, 'banks list');
      expect(table.stdout).toContain('\\u2067ALL RECONCILED OK\\u2069 Bank');
      const json = await runCli(['banks', 'list', '--currency', 'NGN', '--search', '999', '--json'], world.env);
      clean(json, 'banks list --json');
      expect(JSON.parse(json.stdout).find((b: { bankCode: string }) => b.bankCode === '999')?.bankName).toBe(BIDI_BANK_NAME);
    });

    it('status shows the runs without raw escapes', async () => {
      const r = await runCli(['status'], world.env);
      expect(r.code, r.stderr).toBe(0);
      clean(r, 'status');
    });
  },
);

describe('one output layer', () => {
  it('src/ and jobs/ write to stdout and stderr only through src/log/terminal.ts (and pino, sanitised by the logger)', () => {
    const offenders: string[] = [];
    for (const dir of ['src', 'jobs']) {
      for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
        const file = path.join(entry.parentPath, entry.name);
        if (!entry.isFile() || !file.endsWith('.ts') || file.endsWith(path.join('log', 'terminal.ts'))) continue;
        const text = fs.readFileSync(file, 'utf8');
        if (/process\.(stdout|stderr)\.write\(|console\.(log|error|warn|info)\(/.test(text)) offenders.push(path.relative(ROOT, file));
      }
    }
    expect(offenders).toEqual([]);
  });
});
