import { Decimal, type Currency } from '../money/decimal.ts';
import { usdtRate } from './rates.ts';

/**
 * Top-ups and withdrawals the sandbox moved its balance by (control `movement`), and the two files a
 * merchant downloads about them: the provider portal's statement of wallet movements (in the columns
 * of `payrecon movements import`) and, for those sent through a bank, the bank's CAMT.053.
 */
export interface WalletMovement {
  reference: string;
  currency: Currency;
  direction: 'in' | 'out';
  amount: string;
  at: number;
  /** The USDT sent or received, at the sandbox's quoted rate; null for a bank transfer. */
  usdtAmount: string | null;
  usdtRate: string | null;
  /** What the bank booked: the amount less its charge; null when not through a bank. */
  bankAmount: string | null;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class WalletMovements {
  private list: WalletMovement[] = [];

  /** Records a movement; the caller moves the balance. A reference is used once. */
  add(
    seed: number,
    input: {
      reference: string;
      currency: Currency;
      direction: 'in' | 'out';
      amount: string;
      at: number;
      usdt: boolean;
      bankCharge: string | null;
    },
  ): WalletMovement {
    if (this.list.some((m) => m.reference === input.reference)) throw new Error(`reference ${input.reference} is already used`);
    const quote = usdtRate(seed, input.currency, input.at);
    const rate = input.direction === 'in' ? quote.deposit : quote.withdraw;
    const m: WalletMovement = {
      reference: input.reference,
      currency: input.currency,
      direction: input.direction,
      amount: new Decimal(input.amount).toFixed(2),
      at: input.at,
      usdtAmount: input.usdt ? new Decimal(input.amount).dividedBy(rate).toDecimalPlaces(6, Decimal.ROUND_HALF_UP).toFixed(6) : null,
      usdtRate: input.usdt ? rate : null,
      bankAmount: input.bankCharge === null ? null : new Decimal(input.amount).minus(input.bankCharge).toFixed(2),
    };
    this.list.push(m);
    return m;
  }

  has(reference: string): boolean {
    return this.list.some((m) => m.reference === reference);
  }

  reset(): void {
    this.list = [];
  }

  /** The portal's statement: the columns `payrecon movements import` reads. */
  statementCsv(): string {
    const rows = this.list.map((m) =>
      [
        m.reference,
        m.currency,
        m.direction,
        m.amount,
        new Date(m.at).toISOString(),
        m.direction === 'in' ? 'top_up' : 'withdrawal',
        m.usdtAmount ?? '',
        m.usdtRate ?? '',
        m.bankAmount === null ? 'USDT' : 'bank transfer',
      ].join(','),
    );
    return `${['reference,currency,direction,amount,occurred_at,kind,usdt_amount,usdt_rate,note', ...rows].join('\n')}\n`;
  }

  /** The bank's CAMT.053 of the movements sent through it: a withdrawal arrives (CRDT), a top-up leaves (DBIT). */
  bankStatement(bankAccount: string): string {
    const banked = this.list.filter((m) => m.bankAmount !== null);
    const entries = banked.map(
      (m, i) => `      <Ntry>
        <Amt Ccy="${m.currency}">${m.bankAmount}</Amt>
        <CdtDbtInd>${m.direction === 'out' ? 'CRDT' : 'DBIT'}</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${new Date(m.at).toISOString().slice(0, 10)}</Dt></BookgDt>
        <ValDt><Dt>${new Date(m.at).toISOString().slice(0, 10)}</Dt></ValDt>
        <AcctSvcrRef>SANDBOX-BANK-${i + 1}</AcctSvcrRef>
        <NtryDtls><TxDtls><Refs><EndToEndId>${esc(m.reference)}</EndToEndId></Refs><RmtInf><Ustrd>provider wallet ${m.direction === 'out' ? 'withdrawal' : 'top-up'}</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>`,
    );
    return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>SANDBOX-BANK</MsgId></GrpHdr>
    <Stmt>
      <Id>SANDBOX-BANK-STATEMENT</Id>
      <Acct><Id><Othr><Id>${esc(bankAccount)}</Id></Othr></Id></Acct>
${entries.join('\n')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
  }
}
