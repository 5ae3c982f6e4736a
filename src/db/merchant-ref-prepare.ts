import type { Knex } from 'knex';
import { quoteIdent } from './ident.ts';
import { rowsOf, text } from './row.ts';
import { messageOf } from '../domain/errors.ts';
import { ACCOUNT_INDEX, merchantRefScopeState, ORDER_TABLES } from './merchant-ref-scope.ts';

// merchant_ref leads, with text_pattern_ops like sql/035's: once the database-wide index is dropped this one
// serves the lookups by ref and the console's search by a leading piece of it (LIKE 'piece%').
const ACCOUNT_INDEX_COLUMNS = '(merchant_ref text_pattern_ops, account_id)';

/** What `--prepare` did to one order table's per-account index; 'rebuilt': an INVALID leftover was dropped, then built again. */
export interface PrepareStep {
  table: string;
  index: string;
  did: 'already' | 'built' | 'rebuilt';
}

/**
 * Builds the per-account unique index of each order table with CREATE UNIQUE INDEX CONCURRENTLY: the
 * merchant's writes go on while it is built (one pass over the table, then a wait for older transactions).
 * Outside a transaction, as CONCURRENTLY must be. Idempotent: a usable index is left alone. An INVALID one,
 * left by a build that was interrupted (cancelled, connection lost), is dropped and built again; refused
 * while another session is still building an index on that table, since dropping it would undo that build.
 * The database-wide index stays, so merchant_ref is still unique across accounts: the new index refuses
 * nothing more, and both `ON CONFLICT (merchant_ref)` and `ON CONFLICT (account_id, merchant_ref)` work.
 *
 * PGlite (0.5, one process and one session) accepts CONCURRENTLY too, and builds as a plain CREATE would
 * there, so both engines take the same statements; the wait for other sessions is a no-op with none.
 */
export async function preparePerAccountRefs(knex: Knex, onStep: (step: PrepareStep) => void = () => undefined): Promise<PrepareStep[]> {
  const state = await merchantRefScopeState(knex);
  const steps: PrepareStep[] = [];
  for (const table of ORDER_TABLES) {
    const index = ACCOUNT_INDEX(table);
    let step: PrepareStep;
    if (state.accountIndexOn.includes(table)) step = { table, index, did: 'already' };
    else {
      const leftover = state.accountIndexInvalidOn.includes(table);
      if (leftover) {
        await refuseWhileBuilding(knex, table, index);
        await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${quoteIdent(index)}`);
      }
      await build(knex, table, index);
      step = { table, index, did: leftover ? 'rebuilt' : 'built' };
    }
    steps.push(step);
    onStep(step);
  }
  return steps;
}

async function build(knex: Knex, table: string, index: string): Promise<void> {
  try {
    await knex.raw(`CREATE UNIQUE INDEX CONCURRENTLY ${quoteIdent(index)} ON ${quoteIdent(table)} ${ACCOUNT_INDEX_COLUMNS}`);
  } catch (err) {
    throw new Error(
      `building ${index} failed: ${messageOf(err).split('\n')[0]}; run \`payrecon accounts refs-per-account --prepare\` again (it drops the unfinished index and builds it again)`,
      { cause: err },
    );
  }
  const after = await merchantRefScopeState(knex);
  if (!after.accountIndexOn.includes(table)) throw new Error(`${index} was built but is not valid; run --prepare again`);
}

/** An INVALID index is also what a build still running in another session looks like. */
async function refuseWhileBuilding(knex: Knex, table: string, index: string): Promise<void> {
  const res = await knex.raw(`SELECT pid::text AS pid FROM pg_stat_progress_create_index WHERE relid = to_regclass(?)`, [table]);
  const [busy] = rowsOf(res);
  if (busy)
    throw new Error(
      `${index} is unfinished and an index build on ${table} is still running (server process ${text(busy, 'pid')}); wait for it to end, then run --prepare again`,
    );
}
