import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface CsvFileResult {
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  /**
   * SHA-256 of the rows' business view (see business-view.ts; the file's own hash without one):
   * equal when a rerun found the same business content, whatever runs found it.
   */
  readonly business_sha256: string;
}

/**
 * RFC 4180: CRLF records, fields quoted when they hold a comma, quote, CR or LF (a bare LF
 * too, although the record delimiter is CRLF), quotes doubled inside. Also quoted: a semicolon or
 * a tab, the separators a spreadsheet guesses in some locales ("…snapshot; roll-forward not
 * checked" was split in two). A file starts with a UTF-8 byte order mark so a spreadsheet reads
 * `→` and `ü` as UTF-8; every reader here parses with `bom: true`.
 *
 * These files are for machines (scripts, imports): a spreadsheet opening one still turns `022`
 * into 22 whatever the quoting, and rewriting values (`="022"`, a leading apostrophe) would break
 * the scripts. People open the workbook, where identifiers are text cells (docs/reference/accounting-files.md).
 */

const NEEDS_QUOTES = /[",;\t\r\n]/;
export const UTF8_BOM = '\ufeff';

/** One field (null/undefined: empty). */
export function encodeCsvField(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record with its CRLF. */
export function encodeCsvRecord(row: readonly (string | null | undefined)[]): string {
  let out = '';
  for (let i = 0; i < row.length; i++) out += (i === 0 ? '' : ',') + encodeCsvField(row[i]);
  return `${out}\r\n`;
}

// Rows are encoded into one string and handed to the stream about every 64 KiB: per-row
// stream writes (csv-stringify's Transform) were most of the CPU of a million-row report.
const FLUSH_CHARS = 64 * 1024;
const STREAM_BUFFER_BYTES = 1 << 20;

/**
 * One CSV file written as a stream: rows are encoded, batched into the file with
 * backpressure, hashed and counted on the way so nothing is read back or held in memory.
 */
export class CsvFile {
  private readonly head: Transform;
  private readonly done: Promise<void>;
  private failure: unknown = null;
  private rows = 0;
  private bytes = 0;
  private pending = '';
  private readonly hash = createHash('sha256');
  private readonly business = createHash('sha256');
  private businessPending = '';

  constructor(
    readonly path: string,
    header: readonly string[],
    private readonly view: ((row: readonly string[]) => readonly string[]) | null = null,
  ) {
    // Buffers of about a MiB: a flush waits for the disk only when that much is behind, so the
    // writes happen on the thread pool while the next rows are formatted (at 16 KiB, the default,
    // a million-row items.csv waited seconds on write round trips).
    this.head = new Transform({
      highWaterMark: STREAM_BUFFER_BYTES,
      transform: (chunk: Buffer, _enc, cb) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        cb(null, chunk);
      },
    });
    // flush: fsync before close, so a renamed version directory is on disk, not only in cache.
    this.done = pipeline(this.head, createWriteStream(path, { flags: 'wx', flush: true, highWaterMark: STREAM_BUFFER_BYTES }));
    this.done.catch((err: unknown) => {
      this.failure = err;
    });
    this.pending = UTF8_BOM + encodeCsvRecord(header);
    this.businessPending = this.view ? encodeCsvRecord(this.view(header)) : '';
  }

  /**
   * Writes one data row. Returns a promise only when the file is behind (await it before
   * writing more): a million rows without a million awaits.
   */
  write(row: readonly string[]): Promise<void> | undefined {
    if (this.failure) throw this.failure;
    this.rows += 1;
    this.pending += encodeCsvRecord(row);
    if (this.view) this.businessPending += encodeCsvRecord(this.view(row));
    if (this.pending.length < FLUSH_CHARS) return undefined;
    return this.flush();
  }

  private flush(): Promise<void> | undefined {
    const text = this.pending;
    this.pending = '';
    if (this.view) {
      this.business.update(this.businessPending);
      this.businessPending = '';
    }
    if (text === '' || this.head.write(text)) return undefined;
    return Promise.race([once(this.head, 'drain'), this.done]).then(() => {
      if (this.failure) throw this.failure;
    });
  }

  async close(): Promise<CsvFileResult> {
    if (!this.failure) await this.flush();
    this.head.end();
    await this.done;
    const sha256 = this.hash.digest('hex');
    return { rows: this.rows, bytes: this.bytes, sha256, business_sha256: this.view ? this.business.digest('hex') : sha256 };
  }

  /** Stops writing after an error elsewhere; the caller removes the temp directory. */
  async abort(): Promise<void> {
    this.pending = '';
    this.head.destroy();
    await this.done.catch(() => undefined);
  }
}
