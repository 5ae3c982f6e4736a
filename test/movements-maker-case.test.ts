// Maker-checker across the ways a name is given: the command line records under whatever --as says
// ("Fiona"), the console signs its users in under lower-case names ("fiona"). The same person in
// another case is still the maker and may not approve; a different person may.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { approveMovement, insertMovements, type MovementInput } from '../src/db/movements.ts';
import { isMaker } from '../src/domain/movements.ts';

let t: TestDatabase;
const at = new Date('2026-11-27T10:00:00Z');
const movement = (reference: string): MovementInput => ({
  reference,
  currency: 'INR',
  direction: 'out',
  amount: '100.00',
  occurredFrom: at,
  occurredTo: at,
  kind: 'withdrawal',
  usdtAmount: null,
  usdtRate: null,
  note: '',
});

beforeAll(async () => {
  t = await createTestDatabase('movements_maker_case');
  await t.db.knex.transaction((trx) =>
    insertMovements(trx, [movement('WD-1'), movement('WD-2')], { recordedBy: 'Fiona', source: 'import:wd.csv', at }),
  );
});
afterAll(() => t?.drop());

it('the maker in another letter case is refused approving their own movement', async () => {
  const r = await t.db.knex.transaction((trx) => approveMovement(trx, 'WD-1', 'fiona', at));
  expect(r.kind).toBe('own');
  const row = await t.db.knex('movements').where({ reference: 'WD-1' }).first('approved_by');
  expect(row.approved_by).toBeNull();
  const events = await t.db.knex('movement_events').count<{ count: string }[]>('* as count');
  expect(Number(events[0].count)).toBe(2); // the two 'recorded' rows only
});

it('someone else approves it', async () => {
  const r = await t.db.knex.transaction((trx) => approveMovement(trx, 'WD-2', 'frank', at));
  expect(r.kind).toBe('approved');
});

it('isMaker: the same name whatever its case and surrounding spaces; another name is not', () => {
  expect(isMaker({ recordedBy: 'Fiona' }, 'fiona')).toBe(true);
  expect(isMaker({ recordedBy: 'fiona' }, ' FIONA ')).toBe(true);
  expect(isMaker({ recordedBy: 'fiona' }, 'frank')).toBe(false);
});
