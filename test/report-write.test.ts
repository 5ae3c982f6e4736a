import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { listReportVersions } from '../src/db/reports.ts';
import { writeReports, type WriteReportsOptions } from '../src/report/write-reports.ts';
import { ReportDirError } from '../src/report/version-dir.ts';
import { UsageError } from '../src/domain/errors.ts';
import { REPORT_FILES } from '../src/report/manifest.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const SEED = fs.readFileSync(path.join(FIXTURES, 'report-day.sql'), 'utf8');
const expected = (name: string) => fs.readFileSync(path.join(FIXTURES, 'report-day', name), 'utf8');
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

async function runSql(t: TestDatabase, sql: string): Promise<void> {
  // A script of several statements; PGlite's exec() does not take knex's search_path.
  await t.db.engine.runScript(t.db.knex, `SET search_path TO ${t.db.schema};\n${sql}`);
}

describe.each(availableEngines)('writeReports on %s', (engine) => {
  let t: TestDatabase;
  let reportDir: string;
  const options = (over: Partial<WriteReportsOptions> = {}): WriteReportsOptions => ({
    date: '2024-05-01',
    timezone: 'Asia/Kolkata',
    reportDir,
    now: new Date('2024-05-02T01:00:00Z'),
    currencies: ['INR', 'NGN', 'IDR'],
    tolerances: { INR: '1' },
    pageSize: 3, // several cursor pages even for the small fixture
    ...over,
  });

  beforeAll(async () => {
    t = await createTestDatabase(`report_${engine}`, { engine });
    await runSql(t, SEED);
  });
  // Each test starts from the fixture day alone: no version written yet, none of the rows another
  // test adds, and a report directory of its own, so the tests pass in any order.
  beforeEach(async () => {
    await runSql(
      t,
      `DELETE FROM report_version_orders;
       DELETE FROM report_versions;
       TRUNCATE journal_posting_lines, journal_postings;
       DELETE FROM recon_items WHERE run_id = 6 OR merchant_ref = 'M-UNCHECKED';
       DELETE FROM job_runs WHERE id = 6;
       DELETE FROM balance_snapshots WHERE available = 'NaN';`,
    );
    reportDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-report-')), 'reports', 'nested');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('writes the expected files byte for byte into v1 and records the version', async () => {
    const r = await writeReports(t.db, options());
    const dateDir = path.join(reportDir, '2024-05-01');
    expect(r).toMatchObject({ version: 1, unchanged: false, directory: path.join(dateDir, 'v1') });
    for (const name of REPORT_FILES) {
      expect(fs.readFileSync(path.join(r.directory, name), 'utf8'), name).toBe(expected(name));
    }
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v1\n');

    const manifest = JSON.parse(fs.readFileSync(path.join(r.directory, 'manifest.json'), 'utf8'));
    expect(manifest).toEqual(r.manifest);
    expect(manifest).toMatchObject({
      business_date: '2024-05-01',
      timezone: 'Asia/Kolkata',
      window: { from: '2024-05-01T00:00:00.000+05:30', to: '2024-05-02T00:00:00.000+05:30' },
      version: 1,
      supersedes: null,
      created_at: '2024-05-02T01:00:00.000Z',
      partial: false,
      headline: '9 orders, 3 mismatches, 1 error, 1 not yet reconciled; 3 open items from earlier days',
      // 1: the earlier days' checks behind the open items; 5: the next day's rerun of M-TWICE.
      run_ids: ['1', '2', '3', '4', '5'],
    });
    expect(Object.fromEntries(REPORT_FILES.map((n) => [n, manifest.files[n].rows]))).toEqual({
      'items.csv': 9,
      'mismatches.csv': 3,
      'summary_orders.csv': 9,
      'summary_rollforward.csv': 3,
      'timing_items.csv': 1,
      'movements.csv': 0,
      'summary_journal.csv': 3,
      'summary_unknown_orders.csv': 0,
      'summary_identity_mismatches.csv': 0,
      'summary_open_items.csv': 3,
      'summary_late_changes.csv': 0,
      'summary_cases.csv': 2,
      'summary_case_activity.csv': 3,
      'open_items.csv': 3,
      'late_changes.csv': 0,
      'balances.csv': 3,
      'rates.csv': 3,
      // INR only: IDR and NGN have fewer than two snapshots (no journal); 4 entries of 2 or 3 lines.
      'journal.csv': 10,
      // No JOURNAL_BASE_CURRENCY here: the import files have no lines (report-journal.test.ts has them).
      'journal_xero.csv': 0,
      'journal_quickbooks.csv': 0,
      // The day's first version posts the whole day: the same 10 lines; the trial balance's 6 accounts.
      'journal_posting.csv': 10,
      'trial_balance.csv': 6,
    });
    for (const n of REPORT_FILES) expect(manifest.files[n].sha256).toBe(sha256(path.join(r.directory, n)));

    const rows = await listReportVersions(t.db.knex, '2024-05-01');
    expect(rows.map((x) => [x.version, x.directory, x.content_hash])).toEqual([[1, r.directory, manifest.content_hash]]);
    expect(r.record?.id).toBe(rows[0].id);
  });

  it("reruns on unchanged data without a new version, and clears a killed run's temp dir", async () => {
    const dateDir = path.join(reportDir, '2024-05-01');
    expect(await writeReports(t.db, options())).toMatchObject({ version: 1, unchanged: false });
    fs.mkdirSync(path.join(dateDir, '.tmp-killed'));
    fs.writeFileSync(path.join(dateDir, '.tmp-killed', 'items.csv'), 'half a fi');
    const before = REPORT_FILES.map((n) => sha256(path.join(dateDir, 'v1', n)));

    const r = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(r).toMatchObject({ version: 1, unchanged: true });
    expect(r.manifest.created_at).toBe('2024-05-02T01:00:00.000Z');
    expect(fs.readdirSync(dateDir).sort()).toEqual(['CURRENT', 'v1']);
    expect(REPORT_FILES.map((n) => sha256(path.join(dateDir, 'v1', n)))).toEqual(before);
    expect(await listReportVersions(t.db.knex, '2024-05-01')).toHaveLength(1);
  });

  it('a rerun finding the same things (other runs, check times and reasons; resolved now matched) writes no version', async () => {
    expect(await writeReports(t.db, options())).toMatchObject({ version: 1, unchanged: false });
    await runSql(
      t,
      `INSERT INTO job_runs (id, job, started_at, status) VALUES (6, 'reconcile', '2024-05-02T09:00:00Z', 'completed');
       INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
        local_status, local_category, local_amount, local_paid_amount, local_fee,
        provider_status, provider_category, provider_amount, provider_paid_amount, provider_fee, verdict, codes, reason) VALUES
        (6, 'payment', 14, 'M-plain', 'T-14', 'INR', 'NATIVE', '2024-05-02T09:00:00Z',
         'Success', 'success', 100, 100, 1, 'Success', 'success', 100, 100, 1, 'matched', '{}', 'checked again'),
        (6, 'payment', 12, 'M-TWICE', 'T-12', 'INR', 'NATIVE', '2024-05-02T09:00:00Z',
         'Success', 'success', 500, 500, 10, 'Success', 'success', 500, 500, 10, 'matched', '{}', '')`,
    );
    const r = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(r).toMatchObject({ version: 1, unchanged: true });
    expect(await listReportVersions(t.db.knex, '2024-05-01')).toHaveLength(1);
  });

  it('writes v2 beside an untouched v1 when the data changed', async () => {
    const dateDir = path.join(reportDir, '2024-05-01');
    expect(await writeReports(t.db, options())).toMatchObject({ version: 1, unchanged: false });
    const v1Before = fs.readdirSync(path.join(dateDir, 'v1')).map((n) => [n, sha256(path.join(dateDir, 'v1', n))]);
    // The never-checked order is checked now, in a later run: the day's report shows it.
    await runSql(
      t,
      `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
        local_status, local_category, local_amount, verdict) VALUES
        (5, 'payment', 15, 'M-UNCHECKED', 'T-15', 'INR', 'NATIVE', '2024-05-02T15:00:00Z', 'Initiated', 'pending', 75.25, 'pending')`,
    );

    const r = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(r).toMatchObject({ version: 2, unchanged: false, directory: path.join(dateDir, 'v2') });
    expect(r.manifest.supersedes).toBe(1);
    // The data changed, the journal did not: v2 posts nothing, and says so.
    expect(r.manifest.headline).toBe(
      '9 orders, 3 mismatches, 1 error, 1 pending; 3 open items from earlier days · journal: nothing new to post',
    );
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v2\n');
    expect(fs.readdirSync(path.join(dateDir, 'v1')).map((n) => [n, sha256(path.join(dateDir, 'v1', n))])).toEqual(v1Before);
    expect(fs.readFileSync(path.join(r.directory, 'items.csv'), 'utf8')).toContain(
      '\r\n2024-05-01,payment,M-UNCHECKED,,,INR,75.25,,,,,,Initiated,,pending,,,,NATIVE,T-15,,,2024-05-01T10:30:00.000+05:30,,2024-05-02T20:30:00.000+05:30,5,\r\n',
    );
    expect((await listReportVersions(t.db.knex, '2024-05-01')).map((x) => x.version)).toEqual([1, 2]);

    // --force: a new version even though nothing changed, with the same bytes (written at the same
    // instant: case ages count to it).
    const forced = await writeReports(t.db, options({ force: true, now: new Date('2024-05-03T00:00:00Z') }));
    expect(forced).toMatchObject({ version: 3, unchanged: false });
    expect(forced.manifest.content_hash).toBe(r.manifest.content_hash);
  });

  it('leaves no version behind when a run fails half-way', async () => {
    const dateDir = path.join(reportDir, '2024-05-01');
    // Three versions already written: the failed run must leave them and CURRENT as they were.
    for (const version of [1, 2, 3]) {
      expect(await writeReports(t.db, options({ force: true }))).toMatchObject({ version, unchanged: false });
    }
    // A balance nobody can add up: the roll-forward refuses it after items.csv was written.
    await runSql(
      t,
      `INSERT INTO balance_snapshots (currency, available, pending, held, credit, taken_at)
                     VALUES ('INR', 'NaN', 0, 0, 0, '2024-05-01T18:29:00Z')`,
    );
    await expect(writeReports(t.db, options())).rejects.toThrow(/expected decimal text/);
    expect(fs.readdirSync(dateDir).sort()).toEqual(['CURRENT', 'v1', 'v2', 'v3']);
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v3\n');
    expect((await listReportVersions(t.db.knex, '2024-05-01')).map((x) => x.version)).toEqual([1, 2, 3]);
    await runSql(t, `DELETE FROM balance_snapshots WHERE available = 'NaN'`);
  });

  it('a first version renamed into place but never committed (CURRENT write failing) is quarantined; the rerun records v2', async () => {
    const dateDir = path.join(reportDir, '2024-05-01');
    const diskFull = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const failAt = (at: string) => (step: string) => {
      if (step === at) throw diskFull;
    };
    await expect(writeReports(t.db, options({ onStep: failAt('published') }))).rejects.toThrow(/ENOSPC/);
    expect(fs.readdirSync(dateDir)).toEqual(['v1']); // on disk, not recorded: what the rerun must not take for current
    expect(await listReportVersions(t.db.knex, '2024-05-01')).toEqual([]);

    const r = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(r).toMatchObject({
      version: 2,
      unchanged: false,
      quarantined: [{ version: 1, directory: path.join(dateDir, 'v1.orphan-20240503T000000Z') }],
    });
    expect(r.manifest.supersedes).toBeNull();
    expect(fs.readdirSync(dateDir).sort()).toEqual(['CURRENT', 'v1.orphan-20240503T000000Z', 'v2']);
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v2\n');
    expect((await listReportVersions(t.db.knex, '2024-05-01')).map((x) => [x.version, x.id])).toEqual([[2, r.record.id]]);
  });

  it('an unrecorded vN that CURRENT names is never current or "unchanged": quarantined, CURRENT repaired, N never reused', async () => {
    const dateDir = path.join(reportDir, '2024-05-01');
    const v1 = await writeReports(t.db, options());
    const killed = (step: string) => {
      if (step === 'pointed') throw new Error('connection lost before COMMIT');
    };
    await expect(writeReports(t.db, options({ force: true, onStep: killed }))).rejects.toThrow(/before COMMIT/);
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v2\n'); // names a version the database never recorded

    const r = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(r).toMatchObject({ version: 1, unchanged: true, quarantined: [{ version: 2 }] });
    expect(r.record.id).toBe(v1.record.id);
    expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe('v1\n');
    expect(fs.readdirSync(dateDir).sort()).toEqual(['CURRENT', 'v1', 'v2.orphan-20240503T000000Z']);

    // Different content later: v3, never a second, different v2.
    await runSql(
      t,
      `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
        local_status, local_category, local_amount, verdict) VALUES
        (5, 'payment', 15, 'M-UNCHECKED', 'T-15', 'INR', 'NATIVE', '2024-05-02T15:00:00Z', 'Initiated', 'pending', 75.25, 'pending')`,
    );
    const changed = await writeReports(t.db, options({ now: new Date('2024-05-03T00:00:00Z') }));
    expect(changed).toMatchObject({ version: 3, unchanged: false, quarantined: [] });
    expect(changed.manifest.supersedes).toBe(1);
    expect((await listReportVersions(t.db.knex, '2024-05-01')).map((x) => x.version)).toEqual([1, 3]);
  });

  it('creates the version directory like its files and date directory, by the umask (0755 under 022), not 0700', async () => {
    const before = process.umask(0o022);
    try {
      const r = await writeReports(t.db, options());
      const mode = (p: string) => fs.statSync(p).mode & 0o777;
      expect(mode(path.dirname(r.directory))).toBe(0o755);
      expect(mode(r.directory)).toBe(0o755);
      expect(mode(path.join(r.directory, 'items.csv'))).toBe(0o644);
    } finally {
      process.umask(before);
    }
  });

  it('refuses a path-like or impossible date before touching the file system', async () => {
    const untouched = path.join(os.tmpdir(), `payrecon-never-${process.pid}`);
    for (const date of ['../../etc', '2024-02-30', '2024-5-1', '2024-05-01/..', '']) {
      await expect(writeReports(t.db, options({ date, reportDir: untouched }))).rejects.toBeInstanceOf(UsageError);
    }
    expect(fs.existsSync(untouched)).toBe(false);
  });

  it('names the directory it cannot write', async () => {
    const file = path.join(path.dirname(reportDir), 'not-a-dir');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'x');
    const err = await writeReports(t.db, options({ reportDir: file })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReportDirError);
    expect((err as Error).message).toContain(path.join(file, '2024-05-01'));
  });
});
