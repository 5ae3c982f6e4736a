import fs from 'node:fs';
import { UsageError } from '../domain/errors.ts';

/**
 * Opens a file a command reads, before the database is touched, so a wrong path does nothing at all:
 * a missing or unreadable file is bad input (UsageError, exit 3) naming the path.
 */
export async function openInputFile(file: string): Promise<fs.ReadStream> {
  const input = fs.createReadStream(file);
  await new Promise<void>((resolve, reject) =>
    input
      .once('open', () => resolve())
      .once('error', (err: NodeJS.ErrnoException) =>
        reject(new UsageError(`${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)),
      ),
  );
  return input;
}
