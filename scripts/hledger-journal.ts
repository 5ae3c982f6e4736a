// Posting payrecon's posting files into hledger (issue 37): each journal_posting.csv, in the order
// written, becomes hledger transactions (one per journal number, its lines as postings in the entry's
// currency); hledger refuses any that does not balance. Used by scripts/post-to-hledger.ts and its test.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

type Row = Record<string, string>;

function readCsv(file: string): Row[] {
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd();
  if (text === '') return [];
  const split = (l: string) =>
    l
      .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
      .slice(0, -1)
      .map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replaceAll('""', '"'));
  const [head, ...rows] = text.split(/\r?\n/);
  const names = split(head);
  return rows.map((r) => Object.fromEntries(split(r).map((v, i) => [names[i], v])));
}

/** The hledger journal text of posting files, in the order given (the order payrecon wrote them). */
export function hledgerJournal(postingFiles: readonly string[]): string {
  const out: string[] = [];
  for (const file of postingFiles) {
    const byEntry = new Map<string, Row[]>();
    for (const r of readCsv(file)) byEntry.set(r.posting_id, [...(byEntry.get(r.posting_id) ?? []), r]);
    for (const [no, lines] of byEntry) {
      const first = lines[0];
      const adjusts = first.adjusts_date ? ` (adjusts ${first.adjusts_date} v${first.adjusts_version})` : '';
      out.push(`${first.date} ${no} | ${first.entry_id}${adjusts}`);
      for (const l of lines) {
        if (!l.debit && !l.credit) continue; // a USDT rounding line: no local amount
        const amount = l.debit ? l.debit : `-${l.credit}`;
        // Two spaces end an hledger account name; the code first keeps the chart's order.
        out.push(`    ${l.account_code} ${l.account_name.replace(/\s{2,}/g, ' ')}  ${amount} ${l.currency}`);
      }
      out.push('');
    }
  }
  return out.join('\n');
}

/** hledger on the journal file: throws (hledger's own message) when a transaction does not balance; returns the trial balance. */
export function hledgerTrialBalance(journalFile: string): Map<string, string> {
  execFileSync('hledger', ['-f', journalFile, 'check'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const csv = execFileSync('hledger', ['-f', journalFile, 'balance', '--flat', '-O', 'csv'], { encoding: 'utf8' });
  const rows = csv.trim().split(/\r?\n/).slice(1);
  return new Map(
    rows.map((r) => {
      const [account, balance] = r.split('","').map((c) => c.replace(/^"|"$/g, ''));
      return [account, balance];
    }),
  );
}

/** Whether hledger is installed (tests skip with the reason where it is not). */
export function hasHledger(): boolean {
  try {
    execFileSync('hledger', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
