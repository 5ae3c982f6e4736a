/** One booked line of a bank statement, whichever file it came from; amounts decimal text. */
export interface StatementLine {
  /** The bank account: IBAN, or the bank's own id. */
  bankAccount: string;
  /** The bank's id of the line (CAMT AcctSvcrRef, the CSV's line_id): unique within the account. */
  lineId: string;
  bookedOn: string;
  valueOn: string | null;
  currency: string;
  /** As the bank sees its account: credit = money arrived, debit = money left. */
  direction: 'credit' | 'debit';
  amount: string;
  /** End-to-end ids and remittance texts: where a movement's reference is looked for. */
  refs: string[];
  description: string;
}

/** The statement file cannot be used at all: nothing of it is imported. */
export class StatementFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementFormatError';
  }
}
