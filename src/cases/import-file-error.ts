/** A file that is not an export of the queue (or not one that could be read): nothing in it is applied. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFileError';
  }
}
