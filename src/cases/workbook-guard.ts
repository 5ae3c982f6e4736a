import { inflateEntry, zipEntries, type ZipEntry } from './zip-entries.ts';
import { ImportFileError } from './import-file-error.ts';
import { messageOf } from '../domain/errors.ts';

export interface WorkbookLimits {
  /** Bytes all entries together may inflate to. */
  maxInflatedBytes: number;
  /** Rows the first sheet may hold (header included). */
  maxRows: number;
  /** The error for a sheet past maxRows (the caller words it). */
  tooMany: () => Error;
}

/**
 * Reads an uploaded workbook as a stream before anything loads it whole: each entry inflated with
 * its bytes counted against the limit (the sizes a zip declares can be false), and the rows of the
 * first sheet counted as they come out, stopping at the cap. The XML is only scanned for `<row`
 * tags, never parsed, so entities are never expanded here.
 */
export async function guardWorkbook(bytes: Buffer, limits: WorkbookLimits): Promise<void> {
  const entries = zipEntries(bytes);
  if (entries === null)
    throw new ImportFileError(
      'not a workbook that could be read (its zip directory is missing or damaged): upload the .xlsx as saved by the spreadsheet',
    );
  const budget = { left: limits.maxInflatedBytes };
  const tooBig = () =>
    new ImportFileError(
      `the workbook unpacks to more than ${limits.maxInflatedBytes / 1024 / 1024} MB: export a narrower filter and upload it in parts`,
    );
  const sheet = await firstSheetPath(bytes, entries, budget);
  if (sheet === null) throw tooBig();
  try {
    for (const entry of entries) {
      const rows = entry.name === sheet ? rowCounter(limits.maxRows) : undefined;
      const outcome = await inflateEntry(bytes, entry, budget, rows);
      if (outcome === 'over_budget') throw tooBig();
      if (outcome === 'stopped') throw limits.tooMany();
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`not a workbook that could be read (${messageOf(err)}): upload the .xlsx as saved by the spreadsheet`);
  }
}

/** A row element, with or without a namespace prefix (`<row `, `<x:row>`), not `<rowBreaks`. */
const ROW_TAG = /<(?:[A-Za-z_][\w.-]*:)?row[\s>/]/g;
const CARRY = 64;

/** Counts row tags across chunks (a tag may be split between two); false once past `max`. */
function rowCounter(max: number): (chunk: Buffer) => boolean {
  let carry = '';
  let rows = 0;
  return (chunk) => {
    const text = carry + chunk.toString('latin1');
    for (const m of text.matchAll(ROW_TAG)) if (m.index + m[0].length > carry.length) rows++;
    carry = text.slice(-CARRY);
    return rows <= max;
  };
}

/**
 * The zip path of the workbook's first sheet, as exceljs picks it (workbook.xml's first <sheet>,
 * through its relationship); xl/worksheets/sheet1.xml when those cannot be read. Null when even these
 * small files exceed the budget.
 */
async function firstSheetPath(bytes: Buffer, entries: ZipEntry[], budget: { left: number }): Promise<string | null> {
  const read = async (name: string): Promise<string | null | undefined> => {
    const entry = entries.find((e) => e.name === name);
    if (!entry) return undefined;
    const parts: Buffer[] = [];
    const outcome = await inflateEntry(bytes, entry, budget, (c) => parts.push(c) > 0);
    return outcome === 'over_budget' ? null : Buffer.concat(parts).toString('utf8');
  };
  const fallback = 'xl/worksheets/sheet1.xml';
  const workbook = await read('xl/workbook.xml').catch(() => undefined);
  if (workbook === null) return null;
  const id = workbook && /<(?:[\w.-]+:)?sheet\b[^>]*?\b[\w.-]+:id="([^"]+)"/.exec(workbook)?.[1];
  if (!id) return fallback;
  const rels = await read('xl/_rels/workbook.xml.rels').catch(() => undefined);
  if (rels === null) return null;
  for (const tag of rels?.match(/<(?:[\w.-]+:)?Relationship\b[^>]*>/g) ?? []) {
    if (/\bId="([^"]+)"/.exec(tag)?.[1] !== id) continue;
    const target = /\bTarget="([^"]+)"/.exec(tag)?.[1];
    if (!target) return fallback;
    return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  }
  return fallback;
}
