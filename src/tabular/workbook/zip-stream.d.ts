// zip-stream ships no types; this declares the part of its API the workbook writer uses.
declare module 'zip-stream' {
  import type { Readable } from 'node:stream';

  interface EntryData {
    name: string;
    date?: Date;
    store?: boolean;
  }

  class ZipStream extends Readable {
    constructor(options?: { zlib?: { level?: number; chunkSize?: number }; forceZip64?: boolean; highWaterMark?: number });
    /** One entry at a time: the next may start once the callback ran. */
    entry(source: Readable | Buffer, data: EntryData, callback: (err: Error | null) => void): this;
    finalize(): void;
  }
  export default ZipStream;
}
