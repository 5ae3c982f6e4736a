import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { StatementFormatError } from './statement-line.ts';
import type { NewStatementLine } from '../db/statements.ts';

/**
 * Reads an ISO 20022 CAMT.053 (bank-to-customer statement) as it streams: `BkToCstmrStmt/Stmt` per
 * account (`Acct/Id/IBAN` or `Acct/Id/Othr/Id`), a line per booked `Ntry` (`Amt` with `Ccy`, `CdtDbtInd`,
 * `BookgDt`, `ValDt`, `AcctSvcrRef`, and from `NtryDtls/TxDtls` each `Refs/EndToEndId` and `RmtInf/Ustrd`).
 * Choices made for safety (a statement is a file from outside):
 * - No DTD at all: a DOCTYPE is refused, so no entity is ever defined or expanded (saxes itself
 *   expands none but the five predefined; an undefined one is an error).
 * - At most `maxBytes` are read; a larger file is refused when the limit is crossed, not after.
 * - Element depth and each text value are bounded, so a hostile file cannot grow memory either way.
 */
export interface CamtLimits {
  maxBytes: number;
  maxDepth?: number;
  maxText?: number;
}

const DEFAULT_DEPTH = 64;
const DEFAULT_TEXT = 10_000;

interface Entry {
  amount: string;
  currency: string;
  indicator: string;
  booked: string;
  value: string | null;
  servicerRef: string;
  refs: string[];
  texts: string[];
}

const local = (name: string) => name.slice(name.indexOf(':') + 1);
const freshEntry = (): Entry => ({
  amount: '',
  currency: '',
  indicator: '',
  booked: '',
  value: null,
  servicerRef: '',
  refs: [],
  texts: [],
});

export async function readCamt053(input: Readable, limits: CamtLimits): Promise<{ lines: NewStatementLine[]; bytes: number }> {
  const maxDepth = limits.maxDepth ?? DEFAULT_DEPTH;
  const maxText = limits.maxText ?? DEFAULT_TEXT;
  const parser = new SaxesParser({ xmlns: false, position: true });
  const lines: NewStatementLine[] = [];
  const path: string[] = [];
  let text = '';
  let account = '';
  let statementId = '';
  let entryNo = 0;
  let entry: Entry | null = null;
  let amountCurrency = '';
  let failure: Error | null = null;
  let sawRoot = false;

  const fail = (message: string) => {
    failure ??= new StatementFormatError(message);
  };
  parser.on('error', (err) => fail(`not well-formed XML: ${err.message}`));
  parser.on('doctype', () => fail('a DOCTYPE is not accepted in a CAMT.053 statement (entities are never expanded); remove it'));
  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    path.push(name);
    if (path.length > maxDepth) fail(`elements nested deeper than ${maxDepth}: not a CAMT.053 statement`);
    if (path.length === 2 && name === 'BkToCstmrStmt') sawRoot = true;
    text = '';
    if (name === 'Stmt') {
      account = '';
      statementId = '';
      entryNo = 0;
    }
    if (name === 'Ntry' && at('Stmt', 'Ntry')) entry = freshEntry();
    if (name === 'Amt' && entry && at('Ntry', 'Amt')) {
      const ccy = tag.attributes['Ccy'];
      amountCurrency = typeof ccy === 'string' ? ccy : '';
    }
  });
  parser.on('text', (t) => {
    if (text.length + t.length > maxText) fail(`a value longer than ${maxText} characters: not a CAMT.053 statement`);
    else text += t;
  });
  parser.on('cdata', (t) => {
    if (text.length + t.length > maxText) fail(`a value longer than ${maxText} characters: not a CAMT.053 statement`);
    else text += t;
  });
  parser.on('closetag', () => {
    const value = text.trim();
    const name = path[path.length - 1];
    if (at('Stmt', 'Id')) statementId = value;
    else if (at('Acct', 'Id', 'IBAN') || at('Acct', 'Id', 'Othr', 'Id')) account ||= value;
    else if (entry) {
      if (at('Ntry', 'Amt')) {
        entry.amount = value;
        entry.currency = amountCurrency;
      } else if (at('Ntry', 'CdtDbtInd')) entry.indicator = value;
      else if (at('Ntry', 'BookgDt', 'Dt') || at('Ntry', 'BookgDt', 'DtTm')) entry.booked = value.slice(0, 10);
      else if (at('Ntry', 'ValDt', 'Dt') || at('Ntry', 'ValDt', 'DtTm')) entry.value = value.slice(0, 10);
      else if (at('Ntry', 'AcctSvcrRef')) entry.servicerRef = value;
      else if (at('TxDtls', 'Refs', 'EndToEndId') && value && value !== 'NOTPROVIDED') entry.refs.push(value);
      else if (at('TxDtls', 'RmtInf', 'Ustrd') && value) entry.texts.push(value);
      else if (name === 'Ntry' && at('Stmt', 'Ntry')) {
        entryNo++;
        lines.push(toLine(entry, account, statementId, entryNo));
        entry = null;
      }
    }
    path.pop();
    text = '';
  });

  // Whether the innermost elements are these, in this order.
  function at(...names: string[]): boolean {
    if (path.length < names.length) return false;
    return names.every((n, i) => path[path.length - names.length + i] === n);
  }

  function toLine(e: Entry, acct: string, stmt: string, n: number): NewStatementLine {
    const where = `Ntry ${n} of statement ${stmt || '(no Id)'}`;
    if (!acct) fail(`${where}: the statement has no Acct/Id (IBAN or Othr/Id)`);
    if (!/^\d+(\.\d+)?$/.test(e.amount)) fail(`${where}: Amt ${JSON.stringify(e.amount)} is not a decimal amount`);
    if (!/^[A-Z]{3}$/.test(e.currency)) fail(`${where}: Amt has no Ccy attribute (e.g. Ccy="INR")`);
    if (e.indicator !== 'CRDT' && e.indicator !== 'DBIT') fail(`${where}: CdtDbtInd ${JSON.stringify(e.indicator)} is not CRDT or DBIT`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(e.booked)) fail(`${where}: BookgDt has no date (Dt or DtTm)`);
    return {
      bankAccount: acct,
      lineId: e.servicerRef || `${stmt}#${n}`,
      bookedOn: e.booked,
      valueOn: e.value,
      currency: e.currency,
      direction: e.indicator === 'CRDT' ? 'credit' : 'debit',
      amount: e.amount,
      refs: [...e.refs, ...e.texts],
      description: e.texts.join(' '),
    };
  }

  let bytes = 0;
  // A chunk may end inside a multi-byte character; the decoder keeps it for the next.
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of input) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      bytes += buf.length;
      if (bytes > limits.maxBytes) {
        fail(`the file is larger than ${limits.maxBytes} bytes (STATEMENT_MAX_MB); refused without reading the rest`);
        break;
      }
      parser.write(decoder.write(buf));
      if (failure) break;
    }
    if (!failure) {
      parser.write(decoder.end());
      parser.close();
    }
  } finally {
    input.destroy();
  }
  if (failure) throw failure;
  if (!sawRoot) throw new StatementFormatError('no Document/BkToCstmrStmt element: not a CAMT.053 statement');
  return { lines, bytes };
}
