import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { StatementFormatError } from './statement-line.ts';
import type { NewStatementLine } from '../db/statements.ts';
import { messageOf } from '../domain/errors.ts';

/** The columns of a CSV bank statement (docs/reference/bank-statements.md). */
export const STATEMENT_COLUMNS = {
  required: ['bank_account', 'line_id', 'booked_on', 'currency', 'direction', 'amount', 'reference'],
  optional: ['value_on', 'description'],
} as const;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const AMOUNT = /^\d+(\.\d{1,6})?$/;

/**
 * Reads a CSV statement: every row checked, each problem named with its line and the fix. Any
 * refused row refuses the file (the caller imports all or nothing). At most `maxBytes` are read.
 */
export async function readStatementCsv(
  input: Readable,
  limits: { maxBytes: number },
): Promise<{ lines: NewStatementLine[]; rejected: Array<{ line: number; reason: string }>; bytes: number }> {
  const lines: NewStatementLine[] = [];
  const rejected: Array<{ line: number; reason: string }> = [];
  let header: string[] | undefined;
  let bytes = 0;
  let tooLarge = false;
  input.on('data', (chunk: Buffer | string) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (bytes > limits.maxBytes && !tooLarge) {
      tooLarge = true;
      input.destroy();
    }
  });
  const parser = input.pipe(parse({ bom: true, trim: true, info: true, skip_empty_lines: true, relax_column_count: true }));
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (tooLarge) break;
      const line = info.lines;
      if (!header) {
        header = checkHeader(record);
        continue;
      }
      if (record.length !== header.length) {
        rejected.push({ line, reason: `expected ${header.length} fields, got ${record.length}; give every row the header's columns` });
        continue;
      }
      const rec = Object.fromEntries(header.map((h, i) => [h, record[i]]));
      const problems: string[] = [];
      if (!rec.bank_account) problems.push('bank_account: required (the IBAN or the bank’s account id)');
      if (!rec.line_id) problems.push('line_id: required (the bank’s id of the line, unique within the account)');
      if (!DATE.test(rec.booked_on ?? '')) problems.push(`booked_on: ${JSON.stringify(rec.booked_on)} is not a date YYYY-MM-DD`);
      if (rec.value_on && !DATE.test(rec.value_on))
        problems.push(`value_on: ${JSON.stringify(rec.value_on)} is not a date YYYY-MM-DD (or leave it empty)`);
      if (!/^[A-Z]{3}$/.test((rec.currency ?? '').toUpperCase()))
        problems.push(`currency: ${JSON.stringify(rec.currency)} is not a 3-letter code`);
      const direction = (rec.direction ?? '').toLowerCase();
      if (direction !== 'credit' && direction !== 'debit')
        problems.push(`direction: ${JSON.stringify(rec.direction)} is not credit or debit`);
      if (!AMOUNT.test(rec.amount ?? '') || /^0+(\.0+)?$/.test(rec.amount ?? ''))
        problems.push(
          `amount: ${JSON.stringify(rec.amount)} is not an amount above zero (digits and one ".", no sign: direction says which way)`,
        );
      if (problems.length) {
        rejected.push({ line, reason: problems.join('; ') });
        continue;
      }
      lines.push({
        bankAccount: rec.bank_account,
        lineId: rec.line_id,
        bookedOn: rec.booked_on,
        valueOn: rec.value_on || null,
        currency: rec.currency.toUpperCase(),
        direction: direction as 'credit' | 'debit',
        amount: rec.amount,
        refs: [rec.reference, rec.description ?? ''].filter((r) => r !== ''),
        description: rec.description ?? '',
      });
    }
  } catch (err) {
    if (!tooLarge) throw new StatementFormatError(`unreadable CSV: ${messageOf(err)}`);
  }
  if (tooLarge)
    throw new StatementFormatError(`the file is larger than ${limits.maxBytes} bytes (STATEMENT_MAX_MB); refused without reading the rest`);
  if (!header) throw new StatementFormatError('the file is empty: expected a header row');
  return { lines, rejected, bytes };
}

function checkHeader(record: string[]): string[] {
  const { required, optional } = STATEMENT_COLUMNS;
  const known = new Set<string>([...required, ...optional]);
  const unknown = record.filter((h) => !known.has(h));
  const missing = required.filter((h) => !record.includes(h));
  if (unknown.length || missing.length) {
    const problems = [
      unknown.length ? `unknown column(s): ${unknown.join(', ')}` : '',
      missing.length ? `missing column(s): ${missing.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    throw new StatementFormatError(`line 1 (header): ${problems}. Expected ${required.join(', ')}; optional ${optional.join(', ')}.`);
  }
  return record;
}
