import fs from 'node:fs';

/** A settings file is small: a chart of accounts, a fee schedule, a .env. Anything larger is a mistake. */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Reads a settings file named by the configuration, refusing what is not a regular file (a FIFO would
 * block the read forever, /dev/zero never ends) or is larger than the limit. Opened non-blocking, so
 * opening a FIFO with no writer returns at once instead of hanging the job before its first line of output.
 * Throws an Error whose message says what was found and what is expected.
 */
export function readSettingsFile(file: string, maxBytes = SETTINGS_FILE_MAX_BYTES): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error(`not a regular file (${kindOf(stat)}); expected a file of at most ${maxBytes} bytes`);
    if (stat.size > maxBytes) throw new Error(`${stat.size} bytes, more than the ${maxBytes} a settings file may have`);
    // Read at most one byte past the limit: a file growing while read is refused too.
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (let got = -1; got !== 0 && n <= maxBytes; n += got) got = fs.readSync(fd, buf, n, buf.length - n, null);
    if (n > maxBytes) throw new Error(`more than the ${maxBytes} bytes a settings file may have`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}
