import type { Knex } from 'knex';
import { quoteIdent } from './ident.ts';
import { UsageError } from '../domain/errors.ts';
import { bool, dateOrNull, oneOf, rowsOf, text } from './row.ts';

type Conn = Knex | Knex.Transaction;

/**
 * Where a merchantRef is unique (sql/055): 'database', across accounts (the default, what the merchant's
 * `ON CONFLICT (merchant_ref)` needs), or 'account', per account (after `payrecon accounts refs-per-account --yes`).
 */
export type MerchantRefScope = 'database' | 'account';
const SCOPES: readonly MerchantRefScope[] = ['database', 'account'];

/**
 * The three states an order table's unique indexes on merchant_ref go through: 'database' (the database-wide
 * index only), 'prepared' (both: either ON CONFLICT form works, `--prepare` built the per-account one) and
 * 'account' (the per-account index only, after `--yes`).
 */
export type MerchantRefPhase = 'database' | 'prepared' | 'account';

export const ORDER_TABLES = ['payment_orders', 'payout_orders'] as const;
/** The database-wide unique index of each order table (sql/035), dropped by the switch. */
export const GLOBAL_INDEX = (table: string) => `${table}_merchant_ref_key`;
/** The per-account unique index, built by `--prepare` (not by a migration: a deployment that never switches never pays for it). */
export const ACCOUNT_INDEX = (table: string) => `${table}_account_merchant_ref_key`;

export interface MerchantRefScopeState {
  /** As recorded by the switch; the default until it runs. */
  recorded: MerchantRefScope;
  changedAt: Date | null;
  /** Order tables still holding the database-wide unique index. */
  globalIndexOn: string[];
  /** Order tables holding a usable per-account unique index. */
  accountIndexOn: string[];
  /** Order tables holding an INVALID per-account index: a `--prepare` interrupted mid-build; it drops and rebuilds it. */
  accountIndexInvalidOn: string[];
}

/** The order tables' merchant_ref unique indexes in this connection's schema: name -> usable (indisvalid). */
async function orderIndexes(db: Conn): Promise<Map<string, boolean>> {
  const names = ORDER_TABLES.flatMap((t) => [GLOBAL_INDEX(t), ACCOUNT_INDEX(t)]);
  const res = await db.raw(
    `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = ANY(?::text[])`,
    [names],
  );
  return new Map(rowsOf(res).map((r) => [text(r, 'name'), bool(r, 'valid')]));
}

/** The recorded scope and what the catalogue holds. */
export async function merchantRefScopeState(db: Conn): Promise<MerchantRefScopeState> {
  const [row] = rowsOf(await db.raw(`SELECT merchant_ref_scope, merchant_ref_scope_changed_at FROM installation`));
  if (!row) throw new Error('installation: no row; the migration sql/026_installation.sql makes it, run `payrecon migrate`');
  const present = await orderIndexes(db);
  return {
    recorded: oneOf(row, 'merchant_ref_scope', SCOPES),
    changedAt: dateOrNull(row, 'merchant_ref_scope_changed_at'),
    globalIndexOn: ORDER_TABLES.filter((t) => present.has(GLOBAL_INDEX(t))),
    accountIndexOn: ORDER_TABLES.filter((t) => present.get(ACCOUNT_INDEX(t)) === true),
    accountIndexInvalidOn: ORDER_TABLES.filter((t) => present.get(ACCOUNT_INDEX(t)) === false),
  };
}

/** Which of the three states the indexes are in; a table half-way (one prepared, not the other) counts as not prepared. */
export function merchantRefPhase(state: MerchantRefScopeState): MerchantRefPhase {
  if (state.globalIndexOn.length === 0) return 'account';
  return state.accountIndexOn.length === ORDER_TABLES.length ? 'prepared' : 'database';
}

/**
 * The scope the database enforces: 'database' while any order table keeps its database-wide unique index
 * (also when prepared). The import asks this, not the record, so its checks follow what the database would refuse.
 */
export async function enforcedMerchantRefScope(db: Conn): Promise<MerchantRefScope> {
  const present = await orderIndexes(db);
  return ORDER_TABLES.some((t) => present.has(GLOBAL_INDEX(t))) ? 'database' : 'account';
}

export interface ScopeSwitch {
  /** Indexes dropped by this call (none when it had already been done). */
  dropped: string[];
  changedAt: Date;
}

/**
 * Makes merchantRef unique per account: drops the database-wide unique indexes and records the scope, in one
 * transaction. Idempotent (a second call drops nothing). Refused unless every per-account index is there and
 * valid, as merchantRef would then be unique nowhere (a UsageError naming `--prepare`, exit 3). A short lock timeout: DROP INDEX waits for the tables'
 * readers and writers, and the merchant's writes queued behind it would wait too; it fails instead, to be retried.
 */
export async function switchToPerAccountRefs(knex: Knex, lockTimeoutMs = 10_000): Promise<ScopeSwitch> {
  return knex.transaction(async (trx) => {
    const state = await merchantRefScopeState(trx);
    const unusable = ORDER_TABLES.filter((t) => !state.accountIndexOn.includes(t));
    if (unusable.length)
      throw new UsageError(
        `merchant refs: the per-account unique index is missing or unfinished on ${unusable.join(', ')}; run \`payrecon accounts refs-per-account --prepare\` first`,
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
