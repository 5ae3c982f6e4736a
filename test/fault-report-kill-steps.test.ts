/**
 * SIGKILL at each step of writing a report version (PAYRECON_TEST_KILL_AT, so each kill lands at an
 * exact step, not wherever a timer happens to fall), then `report --email` again. Whatever the step,
 * the day ends with exactly one version the database recorded, CURRENT naming it, its e-mail sent
 * exactly once, and no unrecorded vN directory left where a reader would take it for a version.
 * The dangerous steps are `published` and `pointed`: vN is on disk, its row died with the transaction.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { WRITE_STEPS, type WriteStep } from '../src/report/write-reports.ts';
import { KILL_AT_ENV } from '../src/runtime/kill-point.ts';

// One business day per step (empty days: the write path is the same), so each step's e-mails are its own.
const STEPS: Array<{ step: WriteStep; date: string; orphan: boolean }> = [
  { step: 'written', date: '2026-01-01', orphan: false },
  { step: 'recorded', date: '2026-01-02', orphan: false },
  { step: 'published', date: '2026-01-03', orphan: true },
  { step: 'pointed', date: '2026-01-04', orphan: true },
  { step: 'committed', date: '2026-01-05', orphan: false },
];

it('the table above names every step of a version write (a new step gets its kill test)', () => {
  expect(STEPS.map((s) => s.step)).toEqual([...WRITE_STEPS]);
});

describe.skipIf(requiresServer('a killed process must leave the database to another process (a Postgres server)'))(
  'report killed at each step of a version write, then run again',
  () => {
    let world: World;
    let sink: MailSink;
    let reportDir: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      const port = await freePort();
      sink = new MailSink();
      await sink.listen(port);
      reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-kill-steps-'));
      world = await createWorld('fault_report_kill_steps', {
        env: {
          REPORT_DIR: reportDir,
          REPORT_TIMEZONE: 'UTC',
          SMTP_URL: `smtp://127.0.0.1:${port}`,
          REPORT_EMAIL_TO: 'accounting@example.com',
          LOG_LEVEL: 'warn',
        },
      });
      env = world.env;
    });
    afterAll(async () => {
      await world?.close();
      await sink?.close();
      if (reportDir) fs.rmSync(reportDir, { recursive: true, force: true });
    });

    it.each(STEPS)('killed at $step: the rerun leaves one recorded current version, e-mailed once', async ({ step, date, orphan }) => {
      const killed = await runCli(['report', '--date', date, '--email', '--json'], { ...env, [KILL_AT_ENV]: step });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');

      const r = await runCli(['report', '--date', date, '--email', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);

      const rows = await world.t.db.knex('report_versions').where({ business_date: date }).orderBy('version');
      const current = rows.at(-1);
      expect(out.version).toBe(current.version);
      expect(out.record.id).toBe(String(current.id));
      expect(current.email_status).toBe('sent');
      expect(out.emails.filter((e: { status: string }) => e.status === 'sent')).toHaveLength(1);
      expect(sink.received.filter((m) => m.subject?.startsWith(`payrecon ${date}:`))).toHaveLength(1);

      const dateDir = path.join(reportDir, date);
      const entries = fs.readdirSync(dateDir).sort();
      expect(entries.filter((n) => n.startsWith('.tmp-'))).toEqual([]);
      // Every vN directory is a recorded version; CURRENT names the newest.
      const onDisk = entries.filter((n) => /^v\d+$/.test(n)).map((n) => Number(n.slice(1)));
      expect(onDisk.every((v) => rows.some((x) => x.version === v))).toBe(true);
      expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8')).toBe(`v${current.version}\n`);

      const quarantined = entries.filter((n) => n.includes('.orphan-'));
      if (orphan) {
        // The killed run's v1 was renamed aside, said so, and its number not reused by different bytes.
        expect(quarantined).toEqual([expect.stringMatching(/^v1\.orphan-/)]);
        expect(out.quarantined).toEqual([{ version: 1, directory: path.join(dateDir, quarantined[0]) }]);
        expect(r.stderr).toMatch(/quarantined/);
        expect(current.version).toBe(2);
        expect(rows.map((x) => x.version)).toEqual([2]);
      } else {
        expect(quarantined).toEqual([]);
        expect(out.quarantined).toEqual([]);
        expect(rows.map((x) => x.version)).toEqual([1]);
      }
    });
  },
);
