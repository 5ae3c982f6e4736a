import type { Knex } from '../db/knex-types.ts';
import { DEFAULT_ACCOUNT, insertMovements, movementsByReference, type StoredMovement } from '../db/movements.ts';
import { MOVEMENT_COLUMNS, validateMovementRow } from '../import/movement-row.ts';

export type RecordOutcome = { kind: 'recorded'; movement: StoredMovement } | { kind: 'refused'; reason: string };

/** The fields a person fills in to record one movement: the import's columns, as text. */
export type MovementFields = Partial<Record<(typeof MOVEMENT_COLUMNS.required | typeof MOVEMENT_COLUMNS.optional)[number], string>>;

/**
 * Records one movement typed in by a person (the console's form), with its 'recorded' audit row: the
 * same rules as a row of `payrecon movements import`, and a reference already recorded is refused
 * (a recorded movement is never changed; a correction is a new reference). It explains nothing until
 * someone else approves it.
 */
export async function recordMovement(
  db: Knex,
  fields: MovementFields,
  by: { recordedBy: string; source: string; at: Date },
  account: string = DEFAULT_ACCOUNT,
): Promise<RecordOutcome> {
  const v = validateMovementRow(Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, (x ?? '').trim()])));
  if (!v.ok) return { kind: 'refused', reason: v.reason };
  const taken = {
    kind: 'refused' as const,
    reason: `reference: ${v.movement.reference} is already recorded; a recorded movement is never changed: record a correction under a new reference`,
  };
  try {
    return await db.transaction(async (trx: Knex.Transaction) => {
      if ((await movementsByReference(trx, [v.movement.reference], account)).has(v.movement.reference)) return taken;
      const [movement] = await insertMovements(trx, [v.movement], by, account);
      return { kind: 'recorded' as const, movement };
    });
  } catch (err) {
    // Two people recording the same reference at once: the second meets the unique key.
    if ((err as { code?: unknown }).code === '23505') return taken;
    throw err;
  }
}
