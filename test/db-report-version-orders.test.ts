import { afterAll, describe, expect, it } from 'vitest';
import { insertReportVersion } from '../src/db/reports.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

/**
 * report_version_orders refers to its version through statement-level checks (migration 022) instead
 * of a per-row foreign key: the same guarantees, each proven here on every engine.
 */
const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const t of toDrop) await t.drop();
});

describe.each(availableEngines)('report_version_orders keeps to its versions on %s', (engine) => {
  async function world(name: string) {
    const t = await createTestDatabase(name, { engine });
    toDrop.push(t);
    const version = await insertReportVersion(t.db.knex, {
      businessDate: '2024-05-01',
      version: 1,
      directory: '/reports/2024-05-01/v1',
      manifest: {},
      contentHash: 'c',
      businessHash: 'b',
      partial: false,
      createdAt: new Date('2024-05-02T06:00:00Z'),
    });
    const insert = (versionId: string, orderIds: number[]) =>
      t.db.knex.raw(
        `INSERT INTO report_version_orders (version_id, direction, order_id, verdict)
         SELECT ?::bigint, 'payment', g, 'matched' FROM unnest(?::bigint[]) g`,
        [versionId, orderIds],
      );
    return { t, versionId: String(version.id), insert };
  }

  it('takes rows of an existing version, many in one statement', async () => {
    const { t, versionId, insert } = await world('rvo-ok');
    await insert(versionId, [1, 2, 3]);
    const n = (await t.db.knex.raw('SELECT count(*)::text AS n FROM report_version_orders')) as { rows: { n: string }[] };
    expect(n.rows[0].n).toBe('3');
  });

  it('refuses a statement with any row of a version that does not exist, and keeps none of it', async () => {
    const { t, versionId, insert } = await world('rvo-missing');
    const missing = String(Number(versionId) + 1000);
    await expect(
      t.db.knex.raw(
        `INSERT INTO report_version_orders (version_id, direction, order_id, verdict)
         VALUES (?::bigint, 'payment', 1, 'matched'), (?::bigint, 'payment', 2, 'matched')`,
        [versionId, missing],
      ),
    ).rejects.toThrow(new RegExp(`version ${missing} does not exist`));
    await expect(insert(missing, [7])).rejects.toThrow(/does not exist/);
    const n = (await t.db.knex.raw('SELECT count(*)::text AS n FROM report_version_orders')) as { rows: { n: string }[] };
    expect(n.rows[0].n).toBe('0');
  });

  it('refuses moving rows to another version, and deleting or renumbering a version rows refer to', async () => {
    const { t, versionId, insert } = await world('rvo-referenced');
    await insert(versionId, [1]);
    await expect(t.db.knex.raw('UPDATE report_version_orders SET version_id = version_id + 1')).rejects.toThrow(/cannot change/);
    await expect(t.db.knex.raw('DELETE FROM report_versions WHERE id = ?::bigint', [versionId])).rejects.toThrow(/referred to/);
    await expect(t.db.knex.raw('UPDATE report_versions SET id = id + 1000 WHERE id = ?::bigint', [versionId])).rejects.toThrow(
      /referred to/,
    );
    // An unreferenced version can still go (nothing in payrecon deletes one; the rule is only about references).
    const other = await insertReportVersion(t.db.knex, {
      businessDate: '2024-05-02',
      version: 1,
      directory: '/reports/2024-05-02/v1',
      manifest: {},
      contentHash: 'c',
      businessHash: 'b',
      partial: false,
      createdAt: new Date('2024-05-03T06:00:00Z'),
    });
    await t.db.knex.raw('DELETE FROM report_versions WHERE id = ?::bigint', [String(other.id)]);
  });
});
