/** The statement file cannot be used at all: nothing of it is imported. */
export class StatementFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementFormatError';
  }
}
