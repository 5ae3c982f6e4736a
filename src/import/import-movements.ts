import type { Readable } from 'node:stream';
import type { Knex } from '../db/knex-types.ts';
import { Decimal } from '../money/decimal.ts';
import { DEFAULT_ACCOUNT, insertMovements, movementsByReference, type MovementInput, type StoredMovement } from '../db/movements.ts';
import { MOVEMENT_COLUMNS, validateMovementRow } from './movement-row.ts';
import { checkCsvHeader, csvRecords, ImportFormatError } from './import-csv.ts';

export interface MovementImportResult {
  /** Data records read (header excluded). */
  rows: number;
  /** Recorded now (each waits for a second person's approval). */
  inserted: number;
  /** Already recorded with the same values: an import run twice adds nothing. */
  unchanged: number;
  /** Every row refused, with its line and the fix; any refusal means nothing of the file was recorded. */
  rejected: Array<{ line: number; reason: string }>;
}

interface Parsed {
  line: number;
  movement: MovementInput;
}

/**
 * `payrecon movements import`: all or nothing. Every row is validated, and each reference already
 * recorded is compared with what is stored; one bad or changed row refuses the whole file (a
 * register of money moved must never hold half a file). The register is small (people record these
 * one by one), so the good rows are kept in memory until the file is judged.
 */
export async function importMovements(
  db: Knex,
  input: Readable,
  by: { recordedBy: string; source: string; at: Date },
  /** The account whose register they go in (`--account`, or the only one). */
  account: string = DEFAULT_ACCOUNT,
): Promise<MovementImportResult> {
  const { parsed, rejected, rows } = await readMovementCsv(input);
  return db.transaction(async (trx) => {
    const stored = await movementsByReference(
      trx,
      parsed.map((p) => p.movement.reference),
      account,
    );
    const fresh: MovementInput[] = [];
    let unchanged = 0;
    for (const p of parsed) {
      const old = stored.get(p.movement.reference);
      if (!old) fresh.push(p.movement);
      else {
        const changed = differences(old, p.movement);
        if (changed.length === 0) unchanged++;
        else
          rejected.push({
            line: p.line,
            reason: `reference ${p.movement.reference} is already recorded with other values (${changed.join('; ')}); a recorded movement is never changed by an import: correct the row to match, or record the correction under a new reference`,
          });
      }
    }
    rejected.sort((a, b) => a.line - b.line);
    if (rejected.length > 0) return { rows, inserted: 0, unchanged: 0, rejected };
    const written = await insertMovements(trx, fresh, by, account);
    return { rows, inserted: written.length, unchanged, rejected };
  });
}

async function readMovementCsv(
  input: Readable,
): Promise<{ parsed: Parsed[]; rejected: Array<{ line: number; reason: string }>; rows: number }> {
  const parsed: Parsed[] = [];
  const rejected: Array<{ line: number; reason: string }> = [];
  const seen = new Map<string, number>();
  let header: string[] | undefined;
  let rows = 0;
  for await (const { record, line } of csvRecords(input, (r) => rejected.push(r))) {
    if (!header) {
      header = checkCsvHeader(record, MOVEMENT_COLUMNS);
      continue;
    }
    rows++;
    if (record.length !== header.length) {
      rejected.push({ line, reason: `expected ${header.length} fields, got ${record.length}; give every row the header's columns` });
      continue;
    }
    const v = validateMovementRow(Object.fromEntries(header.map((h, i) => [h, record[i]])));
    if (!v.ok) {
      rejected.push({ line, reason: v.reason });
      continue;
    }
    const first = seen.get(v.movement.reference);
    if (first !== undefined) {
      rejected.push({
        line,
        reason: `reference ${v.movement.reference} repeats line ${first}; each movement once, under its own reference`,
      });
      continue;
    }
    seen.set(v.movement.reference, line);
    parsed.push({ line, movement: v.movement });
  }
  if (!header) throw new ImportFormatError('the file is empty: expected a header row');
  return { parsed, rejected, rows };
}

const sameAmount = (a: string | null, b: string | null) => (a === null || b === null ? a === b : new Decimal(a).equals(b));

/** What differs between a stored movement and a row for the same reference, for the refusal. */
function differences(old: StoredMovement, row: MovementInput): string[] {
  const out: string[] = [];
  const diff = (field: string, was: string | null, now: string | null) =>
    out.push(`${field} ${was ?? '(empty)'} recorded, ${now ?? '(empty)'} in the file`);
  if (old.currency !== row.currency) diff('currency', old.currency, row.currency);
  if (old.direction !== row.direction) diff('direction', old.direction, row.direction);
  if (!sameAmount(old.amount, row.amount)) diff('amount', old.amount, row.amount);
  if (old.kind !== row.kind) diff('kind', old.kind, row.kind);
  if (old.occurredFrom.getTime() !== row.occurredFrom.getTime())
    diff('occurred_at', old.occurredFrom.toISOString(), row.occurredFrom.toISOString());
  if (old.occurredTo.getTime() !== row.occurredTo.getTime())
    diff('occurred_until', old.occurredTo.toISOString(), row.occurredTo.toISOString());
  if (!sameAmount(old.usdtAmount, row.usdtAmount)) diff('usdt_amount', old.usdtAmount, row.usdtAmount);
  if (!sameAmount(old.usdtRate, row.usdtRate)) diff('usdt_rate', old.usdtRate, row.usdtRate);
  if (old.note !== row.note) diff('note', JSON.stringify(old.note), JSON.stringify(row.note));
  return out;
}
