/**
 * Issue 35 ("Also"): SIGKILL at each step of a report e-mail (PAYRECON_TEST_KILL_AT, at an exact step),
 * then `report --email` again. Killed before the server accepted it: sent once by the rerun. Killed
 * after acceptance, before it was recorded: sent again, with the same Message-ID (the one duplicate the
 * design admits, which mail clients fold). Killed after it was recorded: not sent again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { MailSink, freePort } from './helpers/mail-sink.ts';
import { EMAIL_STEPS, type EmailStep } from '../src/report/email/send.ts';
import { KILL_AT_ENV } from '../src/runtime/kill-point.ts';

const STEPS: Array<{ step: EmailStep; date: string; mails: number }> = [
  { step: 'email_begun', date: '2026-02-01', mails: 1 },
  { step: 'email_accepted', date: '2026-02-02', mails: 2 },
  { step: 'email_recorded', date: '2026-02-03', mails: 1 },
];

it('the table above names every step of a report e-mail', () => {
  expect(STEPS.map((s) => s.step)).toEqual([...EMAIL_STEPS]);
});

describe.skipIf(requiresServer('a killed process must leave the database to another process (a Postgres server)'))(
  'report e-mail killed at each step, then run again',
  () => {
    let world: World;
    let sink: MailSink;
    let reportDir: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      const port = await freePort();
      sink = new MailSink();
      await sink.listen(port);
      reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-h35-email-kill-'));
      world = await createWorld('h35_email_kill_steps', {
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

    it.each(STEPS)(
      'killed at $step: after the rerun the version is sent and recorded, $mails mail(s) with one Message-ID',
      async ({ step, date, mails }) => {
        const killed = await runCli(['report', '--date', date, '--email', '--json'], { ...env, [KILL_AT_ENV]: step });
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        const r = await runCli(['report', '--date', date, '--email', '--json'], env);
        expect(r.code, r.stderr).toBe(0);
        const rows = await world.t.db.knex('report_versions').where({ business_date: date }).orderBy('version');
        expect(rows.map((x) => [x.version, x.email_status])).toEqual([[1, 'sent']]);
        const received = sink.received.filter((m) => m.subject?.startsWith(`payrecon ${date}:`));
        expect(received).toHaveLength(mails);
        expect(new Set(received.map((m) => m.messageId)).size).toBe(1);
      },
    );
  },
);
