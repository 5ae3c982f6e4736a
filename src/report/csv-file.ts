import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify, type Stringifier } from 'csv-stringify';

export interface CsvFileResult {
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * RFC 4180: CRLF records, fields quoted when they hold a comma, quote, CR or LF
 * (csv-stringify alone leaves a bare LF unquoted when the record delimiter is CRLF).
 */
export const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/, bom: false } as const;

/**
 * One CSV file written as a stream: rows go through csv-stringify into the file with
 * backpressure, hashed and counted on the way so nothing is read back or held in memory.
 */
export class CsvFile {
  private readonly stringifier: Stringifier;
  private readonly done: Promise<void>;
  private failure: unknown = null;
  private rows = 0;
  private bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(readonly path: string, header: readonly string[]) {
    this.stringifier = stringify(CSV_OPTIONS);
    const tap = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        cb(null, chunk);
      },
    });
    // flush: fsync before close, so a renamed version directory is on disk, not only in cache.
    this.done = pipeline(this.stringifier, tap, createWriteStream(path, { flags: 'wx', flush: true }));
    this.done.catch((err: unknown) => {
      this.failure = err;
    });
    this.stringifier.write([...header]);
  }

  /**
   * Writes one data row. Returns a promise only when the file is behind (await it before
   * writing more): a million rows without a million awaits.
   */
  write(row: readonly string[]): Promise<void> | undefined {
    if (this.failure) throw this.failure;
    this.rows += 1;
    if (this.stringifier.write(row)) return undefined;
    return Promise.race([once(this.stringifier, 'drain'), this.done]).then(() => {
      if (this.failure) throw this.failure;
    });
  }

  async close(): Promise<CsvFileResult> {
    this.stringifier.end();
    await this.done;
    return { rows: this.rows, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  /** Stops writing after an error elsewhere; the caller removes the temp directory. */
  async abort(): Promise<void> {
    this.stringifier.destroy();
    await this.done.catch(() => undefined);
  }
}
