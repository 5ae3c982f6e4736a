import type { Knex } from 'knex';

type Conn = Knex | Knex.Transaction;

/** Active bank codes per currency, for the reconcile job's BANK_CODE check (small: hundreds of rows). */
export async function loadActiveBankCodes(db: Conn): Promise<Map<string, Set<string>>> {
  const rows: Array<{ currency: string; bank_code: string }> = await db('bank_codes').where({ active: true }).select('currency', 'bank_code');
  const byCurrency = new Map<string, Set<string>>();
  for (const r of rows) {
    let set = byCurrency.get(r.currency);
    if (!set) byCurrency.set(r.currency, (set = new Set()));
    set.add(r.bank_code);
  }
  return byCurrency;
}
