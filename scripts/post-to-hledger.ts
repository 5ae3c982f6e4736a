// Usage: node --import tsx scripts/post-to-hledger.ts OUT.journal POSTING.csv...
// Writes the posting files (each report version's journal_posting.csv, in the order `payrecon ledger
// postings` lists them) as one hledger journal, has hledger check every transaction balances, and
// prints the trial balance (hledger balance). Needs hledger (Debian: apt-get install hledger).
import fs from 'node:fs';
import { hasHledger, hledgerJournal, hledgerTrialBalance } from './hledger-journal.ts';

const [out, ...files] = process.argv.slice(2);
if (!out || files.length === 0) {
  process.stderr.write('usage: post-to-hledger.ts OUT.journal POSTING.csv... (the posting files in the order written)\n');
  process.exit(2);
}
if (!hasHledger()) {
  process.stderr.write('hledger is not installed (Debian: apt-get install hledger)\n');
  process.exit(2);
}
fs.writeFileSync(out, hledgerJournal(files));
const tb = hledgerTrialBalance(out);
process.stdout.write(`${files.length} posting files posted into ${out}; hledger check: every transaction balances\n`);
for (const [account, balance] of tb) process.stdout.write(`${balance.padStart(24)}  ${account}\n`);
