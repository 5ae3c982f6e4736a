import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import { PassThrough, Transform, type Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import ZipStream from 'zip-stream';

/**
 * Every entry's timestamp: 1980-01-01 00:00:00, the earliest a zip can hold, a value that can
 * only mean "fixed". With it the same data gives the same workbook bytes.
 */
const FIXED_ENTRY_DATE = new Date(Date.UTC(1980, 0, 1));
/** The DOS date and time fields of FIXED_ENTRY_DATE, as a reader finds them in each header. */
export const FIXED_DOS_DATE = (0 << 9) | (1 << 5) | 1;
export const FIXED_DOS_TIME = 0;

/**
 * zlib level of the entries: 1 costs about half the CPU of the default 6 for a file about a
 * fifth larger, which keeps a million-row workbook within the report's time budget.
 */
const ZIP_LEVEL = 1;
/** Text handed to an entry's stream at once: one stream write per about 64 KiB, not per row. */
const FLUSH_CHARS = 64 * 1024;

export interface ZipResult {
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * A zip file written as a stream through zip-stream (native deflate, one entry after another),
 * hashed and counted on its way to disk. Entries are queued: a stream entry added while another
 * is still being written waits its turn (its writer waits too, through backpressure); text
 * produced meanwhile for another entry is spooled to a temp file.
 */
export class ZipFile {
  // Deflate works on the thread pool a chunk at a time: large chunks and buffers keep it busy while
  // the sheets are built, instead of a round trip per 16 KiB (a 1M-row workbook waited seconds on them).
  private readonly zip = new ZipStream({ zlib: { level: ZIP_LEVEL, chunkSize: 256 * 1024 }, highWaterMark: 1 << 20 });
  private readonly written: Promise<void>;
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private rejectFailed!: (err: unknown) => void;
  /** Rejects when anything fails: what a writer waiting for a drain races against. */
  readonly failed: Promise<never>;
  private bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly spools: Promise<void>[] = [];
  private readonly spoolFiles: string[] = [];

  constructor(readonly path: string) {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => undefined);
    const counter = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        cb(null, chunk);
      },
    });
    // flush: fsync before close, as the CSVs, so a renamed version directory is on disk.
    this.written = pipeline(this.zip, counter, createWriteStream(path, { flags: 'wx', flush: true }));
    this.written.catch((err: unknown) => this.fail(err));
  }

  private fail(err: unknown): void {
    if (this.failure !== null) return;
    this.failure = err;
    this.rejectFailed(err);
  }

  /** Adds an entry once the ones before it are written. */
  add(name: string, source: Readable | Buffer): void {
    this.queue = this.queue.then(
      () =>
        new Promise<void>((resolve, reject) => {
          this.zip.entry(source, { name, date: FIXED_ENTRY_DATE }, (err) => (err ? reject(err) : resolve()));
        }),
    );
    this.queue.catch((err: unknown) => this.fail(err));
  }

  /** A text entry written piece by piece: see TextEntry. */
  text(name: string): TextEntry {
    const stream = new PassThrough({ highWaterMark: 4 << 20 });
    this.add(name, stream);
    return new TextEntry(stream, this.failed);
  }

  /**
   * A text entry written to a temp file first, for text produced while another entry streams into
   * the zip (the zip takes one entry at a time): added once it ends, from the file.
   */
  spooled(name: string, file: string): TextEntry {
    const stream = createWriteStream(file, { flags: 'wx' });
    this.spoolFiles.push(file);
    const added = finished(stream).then(() => this.add(name, createReadStream(file)));
    added.catch((err: unknown) => this.fail(err));
    this.spools.push(added);
    return new TextEntry(stream, this.failed);
  }

  /** Waits until every spooled entry has ended and joined the queue: entries added after it follow them. */
  async settle(): Promise<void> {
    await Promise.race([Promise.all(this.spools), this.failed]);
  }

  async close(): Promise<ZipResult> {
    await this.settle();
    this.queue = this.queue.then(() => this.zip.finalize());
    await Promise.race([this.queue, this.failed]);
    await this.written;
    await this.removeSpools();
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  private async removeSpools(): Promise<void> {
    await Promise.all(this.spoolFiles.map((f) => fs.rm(f, { force: true })));
  }

  /** Stops after an error elsewhere; the caller removes the file. */
  async abort(): Promise<void> {
    this.fail(new Error('workbook aborted'));
    this.zip.destroy();
    await this.written.catch(() => undefined);
    await this.removeSpools().catch(() => undefined);
  }
}

/** An entry's text, batched into the zip with backpressure. */
export class TextEntry {
  private pending = '';

  constructor(
    private readonly stream: Writable,
    private readonly failed: Promise<never>,
  ) {}

  /** Returns a promise only when the zip is behind: await it before writing more. */
  write(text: string): Promise<void> | undefined {
    this.pending += text;
    if (this.pending.length < FLUSH_CHARS) return undefined;
    const chunk = this.pending;
    this.pending = '';
    if (this.stream.write(chunk)) return undefined;
    return Promise.race([once(this.stream, 'drain').then(() => undefined), this.failed]);
  }

  end(text = ''): void {
    this.stream.end(this.pending + text);
    this.pending = '';
  }
}
