// Issue 38: bank statements read as they stream (CAMT.053 with an entity-free reader, and the CSV);
// hostile XML refused without reading it whole; matching one-to-one by reference and amount.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readCamt053 } from '../src/statements/camt053.ts';
import { readStatementCsv } from '../src/statements/statement-csv.ts';
import { matchBankLines, type BankLine, type BankMovement } from '../src/recon/bank-match.ts';

const FIXTURE = new URL('./fixtures/statements/camt053.xml', import.meta.url);
const LIMITS = { maxBytes: 1_000_000 };
const xml = (body: string) => Readable.from([body]);

describe('CAMT.053', () => {
  it('reads each booked entry: account, amount and currency, credit or debit, dates, the bank’s ref, the end-to-end refs and remittance', async () => {
    const { lines } = await readCamt053(fs.createReadStream(FIXTURE), LIMITS);
    expect(lines).toEqual([
      {
        bankAccount: '50200012345678',
        lineId: 'HDFC-N-0001',
        bookedOn: '2026-11-27',
        valueOn: '2026-11-27',
        currency: 'INR',
        direction: 'credit',
        amount: '83975.00',
        refs: ['WD-1', 'payout wallet withdrawal'],
        description: 'payout wallet withdrawal',
      },
      {
        bankAccount: '50200012345678',
        lineId: 'HDFC-N-0002',
        bookedOn: '2026-11-27',
        valueOn: null,
        currency: 'INR',
        direction: 'credit',
        amount: '30000.00',
        refs: ['WD-2', 'WD-3'],
        description: '',
      },
      {
        bankAccount: '50200012345678',
        lineId: 'HDFC-N-0003',
        bookedOn: '2026-11-27',
        valueOn: null,
        currency: 'INR',
        direction: 'debit',
        amount: '5000.00',
        refs: ['card fee & charges'],
        description: 'card fee & charges',
      },
    ]);
  });

  it('reads the same file in one-byte chunks (a chunk may end anywhere, even inside a character)', async () => {
    const bytes = fs.readFileSync(FIXTURE).toString('utf8').replace('payout wallet withdrawal', 'retrait €');
    const buf = Buffer.from(bytes);
    const chunks = Array.from(buf, (b) => Buffer.from([b]));
    const { lines } = await readCamt053(Readable.from(chunks), LIMITS);
    expect(lines[0].description).toBe('retrait €');
    expect(lines).toHaveLength(3);
  });

  it.each([
    [
      'an entity defined in a DOCTYPE (billion laughs)',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Document><BkToCstmrStmt>&lol2;</BkToCstmrStmt></Document>',
      /DOCTYPE is not accepted/,
    ],
    [
      'an external entity (XXE)',
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document><BkToCstmrStmt>&x;</BkToCstmrStmt></Document>',
      /DOCTYPE is not accepted/,
    ],
    ['an undefined entity', '<Document><BkToCstmrStmt>&x;</BkToCstmrStmt></Document>', /not well-formed XML/],
    ['unclosed elements', '<Document><BkToCstmrStmt><Stmt>', /not well-formed XML/],
    ['another XML document', '<Invoice><Id>1</Id></Invoice>', /not a CAMT.053 statement/],
    [
      'an entry without a currency',
      '<Document><BkToCstmrStmt><Stmt><Acct><Id><IBAN>X</IBAN></Id></Acct><Ntry><Amt>1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-27</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>',
      /Amt has no Ccy attribute/,
    ],
    [
      'nesting 100 deep',
      `<Document><BkToCstmrStmt>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</BkToCstmrStmt></Document>`,
      /nested deeper than 64/,
    ],
  ])('refuses %s', async (_name, body, message) => {
    await expect(readCamt053(xml(body), LIMITS)).rejects.toThrow(message);
  });

  it('a huge file is refused when the limit is crossed, without reading the rest', async () => {
    let produced = 0;
    // 64 MiB would come; the reader must stop after about 1 MB.
    async function* huge() {
      yield Buffer.from('<Document><BkToCstmrStmt><Stmt><Acct><Id><IBAN>X</IBAN></Id></Acct>');
      for (let i = 0; i < 1024; i++) {
        produced++;
        const entry = `<Ntry><Amt Ccy="INR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-27</Dt></BookgDt><AddtlNtryInf>${'x'.repeat(900)}</AddtlNtryInf></Ntry>`;
        yield Buffer.from(entry.repeat(64));
      }
    }
    await expect(readCamt053(Readable.from(huge()), { maxBytes: 1_000_000 })).rejects.toThrow(/larger than 1000000 bytes/);
    expect(produced).toBeLessThan(20);
  });

  it('one huge text value is refused, not collected', async () => {
    await expect(
      readCamt053(xml(`<Document><BkToCstmrStmt><x>${'y'.repeat(20_000)}</x></BkToCstmrStmt></Document>`), LIMITS),
    ).rejects.toThrow(/longer than 10000 characters/);
  });
});

describe('CSV statement', () => {
  const HEADER = 'bank_account,line_id,booked_on,value_on,currency,direction,amount,reference,description';
  it('reads good rows and names every problem of a bad one', async () => {
    const r = await readStatementCsv(
      Readable.from([
        [HEADER, 'ACC,L1,2026-11-27,2026-11-27,inr,credit,83975.00,WD-1,withdrawal', 'ACC,,27/11/2026,,EURO,in,-5,,'].join('\n'),
      ]),
      LIMITS,
    );
    expect(r.lines).toEqual([
      {
        bankAccount: 'ACC',
        lineId: 'L1',
        bookedOn: '2026-11-27',
        valueOn: '2026-11-27',
        currency: 'INR',
        direction: 'credit',
        amount: '83975.00',
        refs: ['WD-1', 'withdrawal'],
        description: 'withdrawal',
      },
    ]);
    expect(r.rejected).toEqual([
      {
        line: 3,
        reason:
          'line_id: required (the bank’s id of the line, unique within the account); booked_on: "27/11/2026" is not a date YYYY-MM-DD; currency: "EURO" is not a 3-letter code; direction: "in" is not credit or debit; amount: "-5" is not an amount above zero (digits and one ".", no sign: direction says which way)',
      },
    ]);
  });
});

const mv = (id: string, reference: string, amount: string, direction: 'in' | 'out' = 'out'): BankMovement => ({
  id,
  reference,
  currency: 'INR',
  direction,
  amount,
});
const line = (id: string, amount: string, refs: string[], direction: 'credit' | 'debit' = 'credit'): BankLine => ({
  id,
  currency: 'INR',
  direction,
  amount,
  refs,
  bookedOn: '2026-11-27',
});
const TOL = (c: string) => (c === 'INR' ? '50' : '0');

describe('matching to the bank (pure)', () => {
  it.each([
    {
      name: 'one-to-one by reference and amount; bank charges within tolerance kept as the difference',
      movements: [mv('1', 'WD-1', '84000')],
      lines: [line('10', '83975.00', ['WD-1'])],
      matches: [{ lineId: '10', movementIds: ['1'], kind: 'one_to_one', difference: '-25' }],
      unmatchedLines: [],
      unmatchedMovements: [],
    },
    {
      name: 'charges beyond the tolerance: no match',
      movements: [mv('1', 'WD-1', '84000')],
      lines: [line('10', '83900', ['WD-1'])],
      matches: [],
      unmatchedLines: ['10'],
      unmatchedMovements: ['1'],
    },
    {
      name: 'a line never satisfies two movements (two withdrawals with the reference, one line)',
      movements: [mv('1', 'WD-1', '84000'), mv('2', 'wd-1', '84000')],
      lines: [line('10', '84000', ['WD-1'])],
      matches: [{ lineId: '10', movementIds: ['1'], kind: 'one_to_one', difference: '0' }],
      unmatchedLines: [],
      unmatchedMovements: ['2'],
    },
    {
      name: 'a movement never takes two lines: the closer amount wins, the other line stays unmatched',
      movements: [mv('1', 'WD-1', '84000')],
      lines: [line('10', '83980', ['WD-1']), line('11', '84000', ['ref WD-1'])],
      matches: [{ lineId: '11', movementIds: ['1'], kind: 'one_to_one', difference: '0' }],
      unmatchedLines: ['10'],
      unmatchedMovements: [],
    },
    {
      name: 'many-to-one when the line names them all and the sum is exact',
      movements: [mv('2', 'WD-2', '10000'), mv('3', 'WD-3', '20000.00')],
      lines: [line('10', '30000.00', ['WD-2', 'WD-3'])],
      matches: [{ lineId: '10', movementIds: ['2', '3'], kind: 'many_to_one', difference: '0' }],
      unmatchedLines: [],
      unmatchedMovements: [],
    },
    {
      name: 'many-to-one never on an inexact sum, even within the tolerance',
      movements: [mv('2', 'WD-2', '10000'), mv('3', 'WD-3', '20000')],
      lines: [line('10', '29990', ['WD-2', 'WD-3'])],
      matches: [],
      unmatchedLines: ['10'],
      unmatchedMovements: ['2', '3'],
    },
    {
      name: 'the wrong way round: a top-up is a debit, not a credit',
      movements: [mv('1', 'TU-1', '5000', 'in')],
      lines: [line('10', '5000', ['TU-1'], 'credit'), line('11', '5000', ['TU-1'], 'debit')],
      matches: [{ lineId: '11', movementIds: ['1'], kind: 'one_to_one', difference: '0' }],
      unmatchedLines: ['10'],
      unmatchedMovements: [],
    },
    {
      name: 'no match on amount alone, and a reference inside a longer word is not the reference',
      movements: [mv('1', 'WD-1', '84000')],
      lines: [line('10', '84000', ['payout']), line('11', '84000', ['WD-10'])],
      matches: [],
      unmatchedLines: ['10', '11'],
      unmatchedMovements: ['1'],
    },
  ])('$name', ({ movements, lines, matches, unmatchedLines, unmatchedMovements }) => {
    expect(matchBankLines(movements, lines, TOL)).toEqual({ matches, unmatchedLines, unmatchedMovements });
  });
});
