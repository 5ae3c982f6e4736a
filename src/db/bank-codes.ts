import type { Knex } from 'knex';

type Conn = Knex | Knex.Transaction;

/** Active bank codes per currency, for the reconcile job's BANK_CODE check (small: hundreds of rows). */
export async function loadActiveBankCodes(db: Conn): Promise<Map<string, Set<string>>> {
  const rows: Array<{ currency: string; bank_code: string }> = await db('bank_codes')
    .where({ active: true })
    .select('currency', 'bank_code');
  const byCurrency = new Map<string, Set<string>>();
  for (const r of rows) {
    let set = byCurrency.get(r.currency);
    if (!set) byCurrency.set(r.currency, (set = new Set()));
    set.add(r.bank_code);
  }
  return byCurrency;
}

export interface BankCodeRow {
  currency: string;
  bankCode: string;
  bankName: string;
  active: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

interface BankCodeDbRow {
  currency: string;
  bank_code: string;
  bank_name: string;
  active: boolean;
  first_seen_at: Date;
  last_seen_at: Date;
}

const toBankCodeRow = (r: BankCodeDbRow): BankCodeRow => ({
  currency: r.currency,
  bankCode: r.bank_code,
  bankName: r.bank_name,
  active: r.active,
  firstSeenAt: r.first_seen_at,
  lastSeenAt: r.last_seen_at,
});

/** Every stored code of a currency, inactive ones included (the sync compares against all of them). */
export async function loadBankCodes(db: Conn, currency: string): Promise<BankCodeRow[]> {
  const rows: BankCodeDbRow[] = await db('bank_codes').where({ currency }).orderBy('bank_code').select('*');
  return rows.map(toBankCodeRow);
}

/**
 * Makes the stored list of a currency the provider's list: every listed code is upserted active
 * with its current name and last_seen_at = now (first_seen_at kept), every other active code is
 * marked inactive. Run it in one transaction so readers never see half a list.
 */
export async function replaceBankList(
  trx: Conn,
  currency: string,
  entries: ReadonlyArray<{ bankCode: string; bankName: string }>,
  now: Date,
): Promise<void> {
  if (entries.length > 0) {
    await trx('bank_codes')
      .insert(
        entries.map((e) => ({
          currency,
          bank_code: e.bankCode,
          bank_name: e.bankName,
          active: true,
          first_seen_at: now,
          last_seen_at: now,
        })),
      )
      .onConflict(['currency', 'bank_code'])
      .merge(['bank_name', 'active', 'last_seen_at']);
  }
  await trx('bank_codes')
    .where({ currency, active: true })
    .whereNotIn(
      'bank_code',
      entries.map((e) => e.bankCode),
    )
    .update({ active: false });
}

export interface BankListQuery {
  currency: string;
  /** Case-insensitive substring of the name, or a prefix of the code. */
  search?: string;
  /** Include codes the provider no longer lists. */
  includeInactive?: boolean;
}

export async function listBankCodes(db: Conn, q: BankListQuery): Promise<BankCodeRow[]> {
  const query = db('bank_codes').where({ currency: q.currency });
  if (!q.includeInactive) query.andWhere({ active: true });
  const search = q.search?.trim();
  if (search) {
    // LIKE metacharacters in the user's text are matched literally.
    const escaped = search.replace(/[\\%_]/g, (c) => `\\${c}`);
    query.andWhere((w) => w.whereILike('bank_name', `%${escaped}%`).orWhereLike('bank_code', `${escaped}%`));
  }
  // Byte order of the lower-cased name: the same listing whatever the database's locale.
  const rows: BankCodeDbRow[] = await query.orderByRaw('lower(bank_name) COLLATE "C", bank_code').select('*');
  return rows.map(toBankCodeRow);
}
