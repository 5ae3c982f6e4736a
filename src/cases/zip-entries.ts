import zlib from 'node:zlib';

/** One file of a zip, as its central directory lists it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is refused by inflateEntry. */
  method: number;
  compressedSize: number;
  /** Offset of the entry's local header. */
  localHeader: number;
}

/** The entries of the zip's central directory; null when there is none to read (damaged, or ZIP64). */
export function zipEntries(bytes: Buffer): ZipEntry[] | null {
  const EOCD = 0x06054b50;
  let at = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (bytes.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const count = bytes.readUInt16LE(at + 10);
  let p = bytes.readUInt32LE(at + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (p + 46 > bytes.length || bytes.readUInt32LE(p) !== 0x02014b50) return null;
    const compressedSize = bytes.readUInt32LE(p + 20);
    const localHeader = bytes.readUInt32LE(p + 42);
    if (compressedSize === 0xffffffff || localHeader === 0xffffffff) return null;
    const nameLength = bytes.readUInt16LE(p + 28);
    out.push({
      name: bytes.toString('utf8', p + 46, p + 46 + nameLength),
      method: bytes.readUInt16LE(p + 10),
      compressedSize,
      localHeader,
    });
    p += 46 + nameLength + bytes.readUInt16LE(p + 30) + bytes.readUInt16LE(p + 32);
  }
  return out;
}

/** Why inflating stopped early: the bytes budget ran out, or the caller's reader asked to stop. */
export type InflateOutcome = 'whole' | 'over_budget' | 'stopped';

/**
 * Inflates one entry as a stream, counting the bytes that come out against `budget` (shared by the
 * entries of one file) whatever sizes the zip declares: a zip bomb stops at the budget, not after it
 * has filled memory. `onChunk` sees each piece and returns false to stop reading.
 */
export async function inflateEntry(
  bytes: Buffer,
  entry: ZipEntry,
  budget: { left: number },
  onChunk?: (chunk: Buffer) => boolean,
): Promise<InflateOutcome> {
  const h = entry.localHeader;
  if (h + 30 > bytes.length || bytes.readUInt32LE(h) !== 0x04034b50)
    throw new Error(`${entry.name}: no local header where the directory says`);
  const start = h + 30 + bytes.readUInt16LE(h + 26) + bytes.readUInt16LE(h + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  const take = (chunk: Buffer): InflateOutcome | null => {
    budget.left -= chunk.length;
    if (budget.left < 0) return 'over_budget';
    return onChunk && !onChunk(chunk) ? 'stopped' : null;
  };
  if (entry.method === 0) return take(data) ?? 'whole';
  if (entry.method !== 8) throw new Error(`${entry.name}: compression method ${entry.method} is not one a workbook uses`);
  return new Promise<InflateOutcome>((resolve, reject) => {
    const inflate = zlib.createInflateRaw();
    let done = false;
    const finish = (o: InflateOutcome) => {
      if (done) return;
      done = true;
      inflate.destroy();
      resolve(o);
    };
    inflate.on('data', (chunk: Buffer) => {
      const stop = take(chunk);
      if (stop) finish(stop);
    });
    inflate.on('end', () => finish('whole'));
    inflate.on('error', (err) => (done ? undefined : ((done = true), reject(err))));
    inflate.end(data);
  });
}
