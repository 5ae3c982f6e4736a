// docs/guides/for-accounting.md's worked example is the demo's NGN day at a fixed clock (seed 42,
// 2026-11-26T12:00:00Z, as scripts/demo-fingerprint.sh runs it): this runs that command and checks
// every figure of the guide's table and summary line against the files it writes, so they cannot drift.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { readJournalCsv } from './helpers/journal-csv.ts';

const root = path.resolve(import.meta.dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-guide-example-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const plain = (s: string) => s.replaceAll(',', '');

/** The guide's worked example section. */
function section(): string {
  const text = fs.readFileSync(path.join(root, 'docs/guides/for-accounting.md'), 'utf8');
  const from = text.indexOf("## Worked example: the demo's NGN day");
  expect(from).toBeGreaterThan(-1);
  return text.slice(from, text.indexOf('\n## ', from + 1));
}

it("the guide's worked example: the demo at the fixed clock writes exactly its figures", { timeout: 600_000 }, async () => {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmp,
    FP_NOW: '2026-11-26T12:00:00Z',
    REPORT_DIR: path.join(tmp, 'reports'),
    LOG_LEVEL: 'error',
  };
  await promisify(execFile)(
    process.execPath,
    [
      '--import',
      path.join(root, 'scripts/demo-clock.mjs'),
      path.join(root, 'bin/payrecon.mjs'),
      'demo',
      '--data-dir',
      path.join(tmp, 'data'),
    ],
    { cwd: tmp, env, timeout: 590_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const dir = path.join(tmp, 'reports/demo/2026-11-26/v1');
  const doc = section();
  expect(doc).toContain('FP_NOW=2026-11-26T12:00:00Z node --import ./scripts/demo-clock.mjs bin/payrecon.mjs demo');

  // The table, row by row, against journal.csv's NGN lines in order.
  const rows = doc
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| entry') && !l.startsWith('| ---'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const guide = rows.map(([, role, account, debit, credit, usdt]) => {
    const [value, side] = usdt.split(' ');
    return [role, account.split(' ')[0], plain(debit), plain(credit), side === 'Dr' ? plain(value) : '', side === 'Cr' ? plain(value) : ''];
  });
  const ngn = readJournalCsv(path.join(dir, 'journal.csv')).filter((l) => l.currency === 'NGN');
  expect(guide).toEqual(ngn.map((l) => [l.role, l.account_code, l.debit, l.credit, l.usdt_debit, l.usdt_credit]));
  // Entry names and order counts.
  const entries = rows.map((r) => r[0]).filter(Boolean);
  const ids = [...new Set(ngn.map((l) => l.entry_id))];
  expect(entries.map((e) => `2026-11-26-${e.split(' ')[0]}`)).toEqual(ids);
  for (const e of entries.filter((x) => x.includes('orders)')))
    expect(ngn.find((l) => l.entry_id === `2026-11-26-${e.split(' ')[0]}`)!.source_ref).toBe(/\((.*)\)/.exec(e)![1]);

  // Opening, closing and the closing rates.
  const rf = readJournalCsv(path.join(dir, 'summary_rollforward.csv')).find((r) => r.currency === 'NGN')!;
  const [, opening, closing] = /opened at (\d[\d,]*\.\d+) and closed at\s+(\d[\d,]*\.\d+)/.exec(doc)!;
  expect([plain(opening), plain(closing)]).toEqual([rf.opening, rf.closing]);
  const rate = readJournalCsv(path.join(dir, 'rates.csv'))
    .filter((r) => r.currency === 'NGN')
    .at(-1)!;
  const [, deposit, withdraw] = /says (\d[\d,]*\.\d+) NGN per USDT to deposit, (\d[\d,]*\.\d+) to\s+withdraw/.exec(doc)!;
  expect([plain(deposit), plain(withdraw)]).toEqual([rate.deposit, rate.withdraw]);

  // The summary line.
  const sj = readJournalCsv(path.join(dir, 'summary_journal.csv')).find((r) => r.currency === 'NGN')!;
  const m =
    /NGN: (\d+) entries, debits = credits = (\d[\d,]*\.\d+), wallet movement\s+(\d[\d,]*\.\d+), suspense −(\d[\d,]*\.\d+) \(a credit\), USDT debits = credits = (\d[\d,]*\.\d+)/.exec(
      doc,
    )!;
  expect(m).not.toBeNull();
  expect([m[1], plain(m[2]), plain(m[2]), plain(m[3]), `-${plain(m[4])}`, plain(m[5]), plain(m[5])]).toEqual([
    sj.entries,
    sj.debits,
    sj.credits,
    sj.wallet_movement,
    sj.suspense,
    sj.usdt_debits,
    sj.usdt_credits,
  ]);
});
