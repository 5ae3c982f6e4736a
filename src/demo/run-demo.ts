import { sanitizeForTerminal } from '../log/terminal.ts';
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { loadConfig, readEnv } from '../config/config.ts';
import { openDatabase, type Db } from '../db/connect.ts';
import { freshDemoReportDir } from './demo-report-dir.ts';
import { migrate } from '../db/migrate.ts';
import { startSandbox, type Sandbox } from '../sandbox/server.ts';
import { SandboxControl } from '../sandbox/control-client.ts';
import { createProviderClient } from '../provider/from-config.ts';
import { seedMerchant, type SeededOrder } from './seed-merchant.ts';
import { reconcileJob } from '../services/reconcile.ts';
import { snapshotJob } from '../services/snapshot.ts';
import { reportJob } from '../services/report.ts';
import type { RunSummary } from '../reconcile/reconcile.ts';
import { listedFiles, REPORT_FILES } from '../report/manifest.ts';
import { renderTable } from '../cli-ui/table.ts';
import { groupedAmount } from '../recon/format.ts';
import { latestVerdictCounts } from '../db/items.ts';
import { caseStateCounts } from '../db/cases.ts';
import { demoConsoleAccess } from './console-user.ts';
import type { Currency } from '../money/decimal.ts';
import { codeCounts, verdictCounts } from '../recon/run-counts.ts';
import { Decimal } from '../money/decimal.ts';
import { importMovements } from '../import/import-movements.ts';
import { approveAndLink } from '../movements/approve.ts';
import { importStatement } from '../statements/import-statement.ts';

export interface DemoOptions {
  payments: number;
  payouts: number;
  seed: number;
  /** Where the demo's own embedded database lives; wiped at start so the demo can run again and again. */
  dataDir: string;
  out: NodeJS.WritableStream;
  logger: Logger;
}

export interface DemoResult {
  reportDirectory: string;
  files: string[];
  runs: RunSummary[];
  drift: Array<{ currency: string; drift: string }>;
  seconds: number;
}

/** The unexplained balance move the demo injects: the drift the roll-forward must find. */
export const DEMO_DRIFT = { currency: 'NGN' as Currency, amount: '1250.00' };

/**
 * The money the merchant moves itself (issue 38), recorded by treasury and approved by a controller,
 * so it explains itself: a USDT top-up of the NGN wallet, an INR withdrawal to the bank (which keeps a
 * 25.00 charge, within BANK_CHARGE_TOLERANCE).
 */
export const DEMO_MOVEMENTS = [
  { reference: 'DEMO-TOPUP-1', currency: 'NGN', direction: 'in', amount: '1500000.00', usdt: true },
  { reference: 'DEMO-WITHDRAWAL-1', currency: 'INR', direction: 'out', amount: '84000.00', bankCharge: '25.00' },
] as const;

/**
 * The whole night in under a minute: a sandbox provider, a fresh embedded database, a merchant
 * seeded through initiate, designed discrepancies, then snapshot, reconcile, snapshot, report.
 */
export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  const say = (line: string) => opts.out.write(sanitizeForTerminal(`${line}\n`));
  const env = readEnv();
  fs.rmSync(opts.dataDir, { recursive: true, force: true });
  const base = loadConfig({ ...env, PGLITE_DIR: opts.dataDir });
  const usingServer = Boolean(base.DATABASE_URL);
  const reportDir = freshDemoReportDir(base.REPORT_DIR);

  // The provider's time stands still except where the night moves it on (control clock/advance): orders
  // settle between the jobs, never during a snapshot's balance reading. With the sandbox on real time, a
  // slow machine let hundreds of orders settle while the opening snapshot read balances and checked
  // them, so the roll-forward had more timing items than it can place and showed drift nobody caused.
  const providerEpoch = Date.now();
  const sandbox = await startSandbox({
    seed: opts.seed,
    merchants: [{ id: base.PROVIDER_MERCHANT_ID, secret: base.PROVIDER_SECRET }],
    logger: opts.logger,
    now: () => providerEpoch,
    // Requests are signed with payrecon's real clock while the provider's stands still: accept a whole night.
    timestampWindowSec: 24 * 3600,
  });
  // The demo's own schema on a real server, so it never touches a merchant's payrecon tables.
  const config = loadConfig({
    ...env,
    PGLITE_DIR: opts.dataDir,
    PROVIDER_BASE_URL: sandbox.url,
    REPORT_DIR: reportDir,
    ...(usingServer ? { DATABASE_SCHEMA: 'payrecon_demo' } : {}),
    // A night in seconds: orders are checked as soon as they exist, and every open order around
    // each balance reading, instead of waiting out the production delays (docs/concepts/provider-budget.md, requests per order).
    RECON_FIRST_CHECK_PAYMENT: '0',
    RECON_FIRST_CHECK_PAYOUT: '0',
    SNAPSHOT_OPEN_CHECK: 'all',
    // The demo's bank takes a charge on the withdrawal it receives (see DEMO_MOVEMENTS).
    BANK_CHARGE_TOLERANCE: 'INR=50',
  });
  const db = await openDatabase(config, { applicationName: 'payrecon-demo' });
  try {
    if (usingServer) await db.knex.raw('DROP SCHEMA IF EXISTS payrecon_demo CASCADE');
    await migrate(db);
    say(`database  ${usingServer ? `schema payrecon_demo on DATABASE_URL (recreated)` : `embedded PGlite at ${opts.dataDir} (fresh)`}`);
    say(`provider  sandbox at ${sandbox.url} (seed ${opts.seed})`);
    return await night({ ...opts, config, db, sandbox, say, started });
  } finally {
    await db.close();
    await sandbox.close();
  }
}

async function night(
  o: DemoOptions & { config: Config; db: Db; sandbox: Sandbox; say: (l: string) => void; started: number },
): Promise<DemoResult> {
  const { config, db, sandbox, say, logger } = o;
  const control = new SandboxControl(sandbox.url);
  const context = { config, db, logger };
  const client = await createProviderClient(config, { logger, slotStore: db.engine.slotStore() });
  let orders: SeededOrder[];
  try {
    const t0 = Date.now();
    orders = await seedMerchant(db.knex, client, { payments: o.payments, payouts: o.payouts, seed: o.seed });
    say(
      `seeded    ${o.payments} pay-ins and ${o.payouts} payouts over INR, NGN, IDR through initiate (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await client.close();
  }

  // Before the day's money moves: the opening balances.
  await snapshotJob({}, context);

  // Discrepancies a finance team meets: orders the provider never heard of, fees the merchant
  // recorded differently, money that moved with no order. Underpaid pay-ins, stuck orders and
  // INR payouts without a UTR come from the sandbox's own scenarios.
  const payments = orders.filter((x) => x.direction === 'payment');
  const payouts = orders.filter((x) => x.direction === 'payout');
  for (const lost of payments.slice(0, 2)) await control.deleteOrder(lost.transactionRef);
  const feeEdits = payouts.slice(0, 3).map((x) => x.transactionRef);
  await db
    .knex('payout_orders')
    .whereIn('transaction_ref', feeEdits)
    .update({ fee: db.knex.raw('fee + 1') });
  // Before the provider's clock moves on, so their moments lie near payrecon's own (MOVEMENT_LAG_MIN).
  for (const m of DEMO_MOVEMENTS) await control.movement({ ...m });
  await control.advanceClock(15 * 60_000); // the provider's day goes by: orders settle
  await control.adjustBalance(DEMO_DRIFT.currency, DEMO_DRIFT.amount);
  say(
    `injected  2 pay-ins unknown to the provider, 3 payout fees recorded differently, ${DEMO_DRIFT.currency} balance moved by ${groupedAmount(DEMO_DRIFT.amount, DEMO_DRIFT.currency)} with no order`,
  );

  // The sandbox's clock moved a quarter of an hour but payrecon's did not: the open orders the
  // opening snapshot just checked are due again now, as they would be a quarter of an hour later.
  for (const table of ['payment_orders', 'payout_orders'] as const) {
    await db.knex(table).whereIn('status_category', ['pending', 'unknown']).update({ next_check_at: null });
  }
  const first = await reconcileJob({ progress: false }, context);
  // Orders still open after settling are stuck at the provider: make them four days old, as a
  // stuck order in production would be by the time anyone looks, and check them again.
  const stuck = await Promise.all(
    (['payment_orders', 'payout_orders'] as const).map((table) =>
      db
        .knex(table)
        .whereIn('status_category', ['pending', 'unknown'])
        .update({ created_at: db.knex.raw("created_at - interval '4 days'"), next_check_at: null }),
    ),
  );
  const second = await reconcileJob({ progress: false }, context);
  say(`stuck     ${stuck[0] + stuck[1]} orders still open at the provider, aged four days and re-checked`);

  say(await recordMovements(o.dataDir, db, control, config));

  const closing = await snapshotJob({}, context);
  const today = DateTime.now().setZone(config.REPORT_TIMEZONE).toISODate()!;
  const report = await reportJob({ date: today }, context);

  const runs = [...first.outcome.runs, ...second.outcome.runs];
  const drift = closing.result.drift.map((d) => ({ currency: d.currency, drift: d.drift }));
  say('');
  const day = DateTime.fromISO(today, { zone: config.REPORT_TIMEZONE });
  const counts = await latestVerdictCounts(db.knex, day.toJSDate(), day.plus({ days: 1 }).toJSDate());
  say(renderTable(['verdict / code', 'orders'], verdictRows(counts)));
  say(
    renderTable(
      ['currency', 'opening', 'explained by orders', 'explained by movements', 'closing', 'drift'],
      closing.result.currencies
        .filter((c) => c.rollForward)
        .map((c) => {
          const rf = c.rollForward!;
          const show = (v: string | null) => (v === null ? '-' : groupedAmount(v, c.currency));
          const moved = rf.movements.reduce((acc, m) => acc.plus(m.effect), new Decimal(0)).toFixed();
          return [c.currency, show(rf.openingTotal), show(rf.explainedMovement), show(moved), show(rf.closingTotal), show(rf.drift)];
        }),
    ),
  );
  const dir = path.relative(process.cwd(), report.report.directory) || report.report.directory;
  const files = REPORT_FILES.map((f) => path.join(dir, f));
  say(`reports for ${today} (${report.report.unchanged ? 'unchanged' : `version ${report.report.version}`}):`);
  for (const f of listedFiles(report.report.manifest.files)) say(`  ${path.join(dir, f.name)}${f.note ? `  (${f.note})` : ''}`);
  say(`  ${path.join(dir, 'manifest.json')}`);
  say('');
  say(renderTable(['cases', 'open', 'acknowledged', 'resolved'], await caseCountRows(db)));
  const env = config.DATABASE_URL ? `DATABASE_SCHEMA=${config.DATABASE_SCHEMA}` : `PGLITE_DIR=${config.PGLITE_DIR}`;
  say(`work them: ${env} npx payrecon cases list   (then cases show ID, cases ack ID, cases resolve ID --reason R --note "...")`);
  const access = await demoConsoleAccess(db.knex, {
    dataDir: o.dataDir,
    schema: config.DATABASE_URL ? config.DATABASE_SCHEMA : null,
    host: config.CONSOLE_HOST,
    port: config.CONSOLE_PORT,
    now: new Date(),
  });
  for (const line of access) say(line);
  const seconds = (Date.now() - o.started) / 1000;
  say(`\ndone in ${seconds.toFixed(1)} s`);
  return { reportDirectory: report.report.directory, files, runs, drift, seconds };
}

/**
 * Treasury downloads the provider portal's statement of the day's top-ups and withdrawals and imports
 * it; a controller approves each (maker-checker); the bank's CAMT.053 is imported and matched.
 */
async function recordMovements(dataDir: string, db: Db, control: SandboxControl, config: Config): Promise<string> {
  const files = path.join(dataDir, 'downloads');
  fs.mkdirSync(files, { recursive: true });
  const csv = path.join(files, 'wallet-movements.csv');
  fs.writeFileSync(csv, await control.movementStatement());
  const imported = await importMovements(db.knex, fs.createReadStream(csv), {
    recordedBy: 'treasury',
    source: 'import:wallet-movements.csv',
    at: new Date(),
  });
  if (imported.rejected.length) throw new Error(`the demo's movements did not import: ${JSON.stringify(imported.rejected)}`);
  for (const m of DEMO_MOVEMENTS) await approveAndLink(db.knex, m.reference, 'controller', new Date(), config.MOVEMENT_LAG_MIN * 60_000);
  const xml = path.join(files, 'bank-statement.xml');
  fs.writeFileSync(xml, await control.bankStatement());
  const bank = await importStatement(db.knex, xml, {
    source: 'import:bank-statement.xml',
    at: new Date(),
    maxBytes: config.STATEMENT_MAX_MB * 1024 * 1024,
    tolerance: (c) => (config.BANK_CHARGE_TOLERANCE as Record<string, string | undefined>)[c] ?? '0',
    settleAfterMs: config.MOVEMENT_SETTLE_HOURS * 3_600_000,
  });
  const matched = bank.matches.map(
    (m) => `${m.reference} ↔ bank line ${m.bankLineId}${m.difference === '0' ? '' : ` (difference ${m.difference})`}`,
  );
  return `moved     ${DEMO_MOVEMENTS.map((m) => `${m.currency} ${groupedAmount(m.amount, m.currency)} ${m.direction === 'in' ? 'top-up' : 'withdrawal'}`).join(', ')}: recorded by treasury (${imported.inserted} imported), approved by controller; bank statement matched ${matched.join(', ') || 'nothing'}`;
}

/** Cases by code, and a total line. */
async function caseCountRows(db: Db): Promise<Array<[string, number, number, number]>> {
  const counts = await caseStateCounts(db.knex);
  const codes = [...new Set(counts.map((c) => c.code))].sort();
  const n = (code: string | null, state: string) =>
    counts.filter((c) => (code === null || c.code === code) && c.state === state).reduce((s, c) => s + c.count, 0);
  return [
    ...codes.map((code): [string, number, number, number] => [code, n(code, 'open'), n(code, 'acknowledged'), n(code, 'resolved')]),
    ['total', n(null, 'open'), n(null, 'acknowledged'), n(null, 'resolved')],
  ];
}

/** Verdicts, then the mismatch codes under them. */
function verdictRows(totals: Record<string, number>): Array<[string, number]> {
  return [...verdictCounts(totals), ...codeCounts(totals).map(([code, n]): [string, number] => [`  ${code}`, n])];
}
