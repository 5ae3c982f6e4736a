import fs from 'node:fs/promises';

/**
 * Sets every entry's modification time in a finished zip file (local headers and central
 * directory) to one fixed value, in place. exceljs's zip writer stamps each entry with the wall
 * clock and offers no option for it; with this, the same data gives the same workbook bytes.
 *
 * DOS time 1980-01-01 00:00:00, the earliest a zip can hold: a value that can only mean "fixed".
 */
export const FIXED_DOS_DATE = (0 << 9) | (1 << 5) | 1;
export const FIXED_DOS_TIME = 0;

const EOCD_SIG = 0x06054b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const ZIP64_EOCD_LOCATOR_SIG = 0x07064b50;

export async function fixZipTimes(file: string): Promise<number> {
  const fh = await fs.open(file, 'r+');
  try {
    const { size } = await fh.stat();
    // The end record is 22 bytes plus a comment of at most 65535 bytes.
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    let eocd = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD_SIG) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error(`${file}: not a zip file (no end of central directory record)`);
    if (eocd >= 20 && tail.readUInt32LE(eocd - 20) === ZIP64_EOCD_LOCATOR_SIG) {
      throw new Error(`${file}: a zip64 archive; fixing its timestamps is not supported`);
    }
    const entries = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);

    const stamp = Buffer.alloc(4);
    stamp.writeUInt16LE(FIXED_DOS_TIME, 0);
    stamp.writeUInt16LE(FIXED_DOS_DATE, 2);
    const sig = Buffer.alloc(4);
    let p = 0;
    for (let n = 0; n < entries; n++) {
      if (cd.readUInt32LE(p) !== CENTRAL_SIG) throw new Error(`${file}: central directory entry ${n} is malformed`);
      stamp.copy(cd, p + 12);
      const local = cd.readUInt32LE(p + 42);
      await fh.read(sig, 0, 4, local);
      if (sig.readUInt32LE(0) !== LOCAL_SIG) throw new Error(`${file}: local header of entry ${n} is malformed`);
      await fh.write(stamp, 0, 4, local + 10);
      p += 46 + cd.readUInt16LE(p + 28) + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
    }
    await fh.write(cd, 0, cdSize, cdOffset);
    await fh.sync();
    return entries;
  } finally {
    await fh.close();
  }
}
