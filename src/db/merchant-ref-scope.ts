import type { Knex } from 'knex';
import { quoteIdent } from './ident.ts';
import { dateOrNull, oneOf, rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

/**
 * Where a merchantRef is unique (sql/055): 'database', across accounts (the default, what the merchant's
 * `ON CONFLICT (merchant_ref)` needs), or 'account', per account (after `payrecon accounts refs-per-account`).
 */
export type MerchantRefScope = 'database' | 'account';
const SCOPES: readonly MerchantRefScope[] = ['database', 'account'];

const TABLES = ['payment_orders', 'payout_orders'] as const;
/** The database-wide unique index of each order table (sql/035), dropped by the switch. */
const GLOBAL_INDEX = (table: string) => `${table}_merchant_ref_key`;
/** The per-account unique index (sql/055), which every scope keeps. */
const ACCOUNT_INDEX = (table: string) => `${table}_account_merchant_ref_key`;

export interface MerchantRefScopeState {
  /** As recorded by the switch; the default until it runs. */
  recorded: MerchantRefScope;
  changedAt: Date | null;
  /** Order tables still holding the database-wide unique index. */
  globalIndexOn: string[];
  /** Order tables missing the per-account unique index (none once sql/055 ran). */
  accountIndexMissingOn: string[];
}

/** Indexes of the order tables present in this connection's schema, by name. */
async function orderIndexes(db: Conn): Promise<Set<string>> {
  const names = TABLES.flatMap((t) => [GLOBAL_INDEX(t), ACCOUNT_INDEX(t)]);
  const res = await db.raw(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY(?::text[])`, [names]);
  return new Set(rowsOf(res).map((r) => text(r, 'indexname')));
}

/** The recorded scope and what the catalogue holds. */
export async function merchantRefScopeState(db: Conn): Promise<MerchantRefScopeState> {
  const [row] = rowsOf(await db.raw(`SELECT merchant_ref_scope, merchant_ref_scope_changed_at FROM installation`));
  if (!row) throw new Error('installation: no row; the migration sql/026_installation.sql makes it, run `payrecon migrate`');
  const present = await orderIndexes(db);
  return {
    recorded: oneOf(row, 'merchant_ref_scope', SCOPES),
    changedAt: dateOrNull(row, 'merchant_ref_scope_changed_at'),
    globalIndexOn: TABLES.filter((t) => present.has(GLOBAL_INDEX(t))),
    accountIndexMissingOn: TABLES.filter((t) => !present.has(ACCOUNT_INDEX(t))),
  };
}

/**
 * The scope the database enforces: 'database' while any order table keeps its database-wide unique index.
 * The import asks this, not the record, so its checks follow what the database would refuse.
 */
export async function enforcedMerchantRefScope(db: Conn): Promise<MerchantRefScope> {
  const present = await orderIndexes(db);
  return TABLES.some((t) => present.has(GLOBAL_INDEX(t))) ? 'database' : 'account';
}

export interface ScopeSwitch {
  /** Indexes dropped by this call (none when it had already been done). */
  dropped: string[];
  changedAt: Date;
}

/**
 * Makes merchantRef unique per account: drops the database-wide unique indexes and records the scope, in one
 * transaction. Idempotent (a second call drops nothing). Refused while a per-account index is missing, as
 * merchantRef would then be unique nowhere. A short lock timeout: DROP INDEX waits for the tables' readers
 * and writers, and the merchant's writes queued behind it would wait too; it fails instead, to be retried.
 */
export async function switchToPerAccountRefs(knex: Knex, lockTimeoutMs = 10_000): Promise<ScopeSwitch> {
  return knex.transaction(async (trx) => {
    const state = await merchantRefScopeState(trx);
    if (state.accountIndexMissingOn.length)
      throw new Error(
        `merchant refs: the per-account unique index is missing on ${state.accountIndexMissingOn.join(', ')}; run \`payrecon migrate\` (sql/055) first`,
      );
    await trx.raw(`SELECT set_config('lock_timeout', ?, true)`, [`${lockTimeoutMs}ms`]);
    const dropped: string[] = [];
    for (const table of state.globalIndexOn) {
      const index = GLOBAL_INDEX(table);
      await trx.raw(`DROP INDEX IF EXISTS ${quoteIdent(index)}`);
      dropped.push(index);
    }
    const [row] = rowsOf(
      await trx.raw(
        `UPDATE installation SET merchant_ref_scope = 'account', merchant_ref_scope_changed_at = coalesce(merchant_ref_scope_changed_at, now())
         RETURNING merchant_ref_scope_changed_at`,
      ),
    );
    return { dropped, changedAt: dateOrNull(row, 'merchant_ref_scope_changed_at') ?? new Date() };
  });
}
