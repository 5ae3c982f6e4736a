/**
 * SIGKILL at random points of reconcile, snapshot and report (20 kills, seeded so the sequence is
 * reproducible), each job started again after every kill; then each job runs to completion. Each kill
 * waits (polling) until the run has started and is proved to have landed mid-run (the process still
 * alive, the run row left running); one that landed after the run ended is retried, not counted.
 * Real processes, real Postgres, the sandbox over HTTP, and a real SMTP server capturing mail.
 * Afterwards: no order lost or checked twice in any completed run, no run left half-done,
 * every report version on disk complete (manifest's SHA-256 of each file), no temp directory
 * left, CURRENT names a complete version, and e-mail as promised: a duplicate only with the same
 * Message-ID (a kill between SMTP accepting and the database marking it sent), the final one exactly once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';
import { runCli, startCli, waitFor } from './helpers/cli.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { rng } from '../src/sandbox/prng.ts';

const SEED = 20261122;
const KILLS = 20;
const ORDERS = { payments: 100, payouts: 50 };

interface Mail {
  subject: string;
  messageId: string;
}

describe.skipIf(requiresServer('several payrecon processes share one database'))(
  'SIGKILL at random points of reconcile, snapshot and report',
  () => {
    let world: World;
    let smtp: SMTPServer;
    let reportDir: string;
    const mails: Mail[] = [];
    const today = new Date().toISOString().slice(0, 10);
    const total = ORDERS.payments + ORDERS.payouts;
    const kills: Array<{ job: string; delayMs: number; code: number | null; signal: string | null; midRun: boolean }> = [];

    beforeAll(async () => {
      smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData: (stream, _session, cb) => {
          simpleParser(stream).then(
            (m) => {
              mails.push({ subject: m.subject ?? '', messageId: m.messageId ?? '' });
              cb();
            },
            (err: Error) => cb(err),
          );
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
      const port = (smtp.server.address() as { port: number }).port;
      reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-kill-'));
      world = await createWorld('fault_kill', {
        env: {
          RECON_CONCURRENCY: '4',
          RECON_BATCH_SIZE: '10',
          REPORT_DIR: reportDir,
          REPORT_TIMEZONE: 'UTC',
          SMTP_URL: `smtp://127.0.0.1:${port}`,
          REPORT_EMAIL_TO: 'accounting@example.com',
          LOG_LEVEL: 'silent',
        },
      });
      await seedMerchant(world.t.db.knex, world.client, { ...ORDERS, seed: 41 });
      await world.control.advanceClock(2_000);
      await world.control.setLatency(15); // a reconcile run lasts long enough to be killed half-way

      const random = rng(SEED);
      const jobs: Array<string[]> = [
        ['reconcile', '--date', today, '--json'],
        ['snapshot', '--json'],
        ['report', '--date', today, '--email', '--force', '--json'],
      ];
      // A seeded extra delay after the run has started, spreading the kills over each job's run.
      const spreadMs: Record<string, number> = { reconcile: 800, snapshot: 60, report: 400 };
      const knex = world.t.db.knex;
      const lastRunId = async (job: string) => Number((await knex('job_runs').where({ job }).max('id as id'))[0].id ?? 0);
      const tmpDirs = () =>
        (fs.existsSync(path.join(reportDir, today)) ? fs.readdirSync(path.join(reportDir, today)) : []).filter((n) =>
          n.startsWith('.tmp-'),
        );
      // Started: reconcile and snapshot have created their run row; report is writing a version (its temp directory).
      const started = async (job: string, before: number) => (job === 'report' ? tmpDirs().length > 0 : (await lastRunId(job)) > before);
      for (let attempt = 0; kills.filter((k) => k.midRun).length < KILLS && attempt < 3 * KILLS; attempt++) {
        const args = jobs[kills.filter((k) => k.midRun).length % jobs.length];
        const job = args[0];
        const before = await lastRunId(job);
        const proc = startCli(args, world.env);
        let exited = false;
        void proc.done.then(() => (exited = true));
        // Poll for the run to start instead of guessing tsx's start-up time.
        await waitFor(async () => exited || (await started(job, before)), 60_000, 10);
        const delayMs = Math.floor(random() * spreadMs[job]);
        await new Promise((r) => setTimeout(r, delayMs));
        proc.child.kill('SIGKILL');
        const r = await proc.done;
        // Mid-run: the process was still alive when killed, and (reconcile, snapshot) its run row is left running.
        const row = job === 'report' ? undefined : await knex('job_runs').where({ job }).where('id', '>', before).orderBy('id').first();
        const midRun = r.signal === 'SIGKILL' && (job === 'report' || row?.status === 'running');
        kills.push({ job, delayMs, code: r.code, signal: r.signal, midRun });
      }
      await world.control.setLatency(0);
    }, 600_000);
    afterAll(async () => {
      await world?.close();
      await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
      if (reportDir) fs.rmSync(reportDir, { recursive: true, force: true });
    });

    it('the kill sequence really killed processes of all three jobs, each kill mid-run', () => {
      const midRun = kills.filter((k) => k.midRun);
      expect(midRun, JSON.stringify(kills)).toHaveLength(KILLS);
      expect(new Set(midRun.map((k) => k.job))).toEqual(new Set(['reconcile', 'snapshot', 'report']));
    });

    it('reconcile: the next start completes; every completed run checked each order exactly once; nothing left running', async () => {
      const r = await runCli(['reconcile', '--date', today, '--json'], world.env);
      expect(r.code, r.stderr).toBe(0);
      const runs = await world.t.db.knex('job_runs').where({ job: 'reconcile' }).orderBy('id');
      expect(runs.filter((x) => x.status === 'running' || x.status === 'interrupted')).toEqual([]);
      // Only the runs of `reconcile --date`: the snapshot job's own check of the open orders around its
      // readings is a reconcile run too (selection 'open'), selecting however many were open then.
      const isDayRun = (x: { params: { selection: { mode: string } } }) => x.params.selection.mode === 'range';
      const completed = runs.filter((x) => x.status === 'completed' && isDayRun(x));
      expect(completed.length).toBeGreaterThanOrEqual(1);
      for (const run of completed) {
        expect(run.selected).toBe(total);
        expect(run.checked).toBe(total);
        const perOrder = await world.t.db
          .knex('recon_items')
          .where({ run_id: run.id })
          .select('direction', 'order_id')
          .count<{ n: string }[]>('* as n')
          .groupBy('direction', 'order_id');
        expect(perOrder, `run ${run.id}`).toHaveLength(total);
        expect(
          perOrder.every((x) => Number(x.n) === 1),
          `run ${run.id}`,
        ).toBe(true);
      }
    });

    it('snapshot: the next start completes, and no snapshot run holds a currency twice', async () => {
      const r = await runCli(['snapshot', '--json'], world.env);
      expect(r.code, r.stderr).toBe(0);
      const dupes = await world.t.db
        .knex('balance_snapshots')
        .select('run_id', 'currency')
        .count<{ n: string }[]>('* as n')
        .groupBy('run_id', 'currency')
        .havingRaw('count(*) > 1');
      expect(dupes).toEqual([]);
      const last = await world.t.db.knex('job_runs').where({ job: 'snapshot' }).orderBy('id', 'desc').first();
      expect(last.status).toBe('completed');
      const rows = await world.t.db.knex('balance_snapshots').where({ run_id: last.id });
      expect(rows.map((x) => x.currency).sort()).toEqual(['IDR', 'INR', 'NGN']);
    });

    it('report: every version on disk is complete, no temp dir is left, CURRENT is whole, each e-mail arrived at most once', async () => {
      const r = await runCli(['report', '--date', today, '--email', '--force', '--json'], world.env);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      const dateDir = path.join(reportDir, today);
      const entries = fs.readdirSync(dateDir);
      expect(entries.filter((n) => n.startsWith('.tmp-'))).toEqual([]);
      const versions = entries.filter((n) => /^v\d+$/.test(n));
      expect(versions).toContain(`v${out.version}`);
      for (const v of versions) {
        const manifest = JSON.parse(fs.readFileSync(path.join(dateDir, v, 'manifest.json'), 'utf8'));
        expect(manifest.version).toBe(Number(v.slice(1)));
        for (const [name, file] of Object.entries(manifest.files as Record<string, { sha256: string }>)) {
          const bytes = fs.readFileSync(path.join(dateDir, v, name));
          expect(crypto.createHash('sha256').update(bytes).digest('hex'), `${v}/${name}`).toBe(file.sha256);
        }
      }
      expect(fs.readFileSync(path.join(dateDir, 'CURRENT'), 'utf8').trim()).toBe(`v${out.version}`);

      // E-mail, as promised (docs/operations/reliability-scorecard.md): at least once per version, a duplicate only as the same Message-ID.
      // A kill between the SMTP server accepting a mail and the database marking it sent makes the next
      // run send it again; the final version (its run not killed) exactly once; nothing left pending.
      const ids = mails.map((m) => m.messageId);
      const perId = new Map<string, number>();
      for (const id of ids) perId.set(id, (perId.get(id) ?? 0) + 1);
      const reportKills = kills.filter((k) => k.midRun && k.job === 'report').length;
      for (const [id, n] of perId) {
        expect(id, JSON.stringify(mails)).toMatch(/^<.+@.+>$/);
        expect(n, `${id} received ${n} times`).toBeLessThanOrEqual(1 + reportKills);
      }
      const recorded = await world.t.db.knex('report_versions').where({ business_date: today }).orderBy('version');
      const finalRow = recorded.find((x) => x.version === out.version);
      expect(finalRow.email_status).toBe('sent');
      const sent = (out.emails as Array<{ status: string; version: number; messageId: string }>).find((e) => e.version === out.version);
      expect(sent?.status).toBe('sent');
      expect(mails.filter((m) => m.messageId === sent!.messageId)).toHaveLength(1);
      expect(recorded.filter((x) => x.email_status === 'pending')).toEqual([]);
    });
  },
);
