import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, CHECK_AT_ONCE_ENV, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { addUsers, FixedClock } from './helpers/console.ts';
import { caseHistory, getCase } from '../src/db/cases.ts';

/** The queue at volume through the command line: 250 seeded open cases, no provider needed. */
// payrecon processes beside the test's own open database: PGlite serves one at a time.
describe.skipIf(requiresServer("the cases commands run as processes beside the test's open database"))(
  'payrecon cases list, assign, comment and bulk resolve at volume',
  () => {
    let t: TestDatabase;
    let env: Record<string, string>;
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });
    const json = async (args: string[]) => {
      const res = await cli([...args, '--json']);
      if (res.code !== 0) throw new Error(`payrecon ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
      return JSON.parse(res.stdout);
    };

    beforeAll(async () => {
      t = await createTestDatabase('cases_queue_cli');
      env = { DATABASE_URL: t.url!, LOG_LEVEL: 'warn', PAYRECON_ACTOR: 'asha@finance', ...CHECK_AT_ONCE_ENV };
      await seedOpenCases(t.db.knex, 250, new Date());
      await addUsers(t, new FixedClock(new Date()), { asha: 'finance', bo: 'finance' });
    }, 120_000);
    afterAll(() => t?.drop());

    it('--json is {total, cases, next}: pages of 100 by a cursor, every case once, and the text says "showing 1–100 of 250"', async () => {
      const first = await json(['cases', 'list']);
      expect(first.total).toBe(250);
      expect(first.cases).toHaveLength(100);
      const second = await json(['cases', 'list', '--after', first.next]);
      const third = await json(['cases', 'list', '--after', second.next]);
      expect(third.cases).toHaveLength(50);
      expect(third.next).toBeNull();
      const ids = [...first.cases, ...second.cases, ...third.cases].map((c: { id: string }) => c.id);
      expect(new Set(ids).size).toBe(250);
      const text = (await cli(['cases', 'list', '--limit', '100'])).stdout;
      expect(text).toContain('showing 1–100 of 250; next page: payrecon cases list --limit 100 --after ');
      const onward = (await cli(['cases', 'list', '--limit', '100', '--after', second.next])).stdout;
      expect(onward).toContain('showing 201–250 of 250');
      expect((await json(['cases', 'list', '--all'])).cases).toHaveLength(250);
    }, 120_000);

    it('--page N: the Nth page beside the cursor, "showing 101–200 of 250", the next page by number; past the end refused', async () => {
      const byCursor = await json(['cases', 'list']);
      const second = await json(['cases', 'list', '--page', '2']);
      expect(second.total).toBe(250);
      expect(second.cases.map((c: { id: string }) => c.id)).toEqual(
        (await json(['cases', 'list', '--after', byCursor.next])).cases.map((c: { id: string }) => c.id),
      );
      // Its cursor carries on from there.
      expect((await json(['cases', 'list', '--after', second.next])).cases[0].id).toBe(
        (await json(['cases', 'list', '--page', '3'])).cases[0].id,
      );
      const text = (await cli(['cases', 'list', '--page', '2', '--code', 'AMOUNT', '--limit', '40'])).stdout;
      expect(text).toContain('showing 41–80 of 84; next page: payrecon cases list --code AMOUNT --limit 40 --page 3');
      expect((await cli(['cases', 'list', '--page', '3', '--code', 'AMOUNT', '--limit', '40'])).stdout).toMatch(/showing 81–84 of 84\n$/);
      const past = await cli(['cases', 'list', '--page', '4', '--limit', '100']);
      expect(past.code).toBe(3);
      expect(past.stderr).toContain('--page: 4 is past the last page: 250 cases make 3 pages of 100');
      const both = await cli(['cases', 'list', '--page', '2', '--after', byCursor.next]);
      expect(both.code).toBe(3);
      expect((await cli(['cases', 'list', '--page', '0'])).code).toBe(3);
    }, 120_000);

    it('--ref finds a case by a leading piece of either ref in any case; under 6 characters is refused', async () => {
      const c = (await getCase(t.db.knex, '1'))!;
      const byMerchant = await json(['cases', 'list', '--ref', c.merchantRef!.slice(0, 17).toLowerCase()]);
      expect(byMerchant.cases.map((x: { id: string }) => x.id)).toEqual(['1']);
      const byTransaction = await json(['cases', 'list', '--ref', c.transactionRef!.slice(0, 8).toUpperCase()]);
      expect(byTransaction.cases.map((x: { id: string }) => x.id)).toContain('1');
      const short = await cli(['cases', 'list', '--ref', 'ORD-0']);
      expect(short.code).toBe(3);
      expect(short.stderr).toContain('--ref: give at least 6 characters of a merchant or transaction ref');
    }, 120_000);

    it('assign gives a case to a console user and back to nobody; anyone else is refused', async () => {
      expect((await json(['cases', 'assign', '2', '--to', 'asha'])).assignee).toBe('asha');
      expect((await json(['cases', 'list', '--assignee', 'asha'])).total).toBe(1);
      const bogus = await cli(['cases', 'assign', '2', '--to', 'mallory']);
      expect(bogus.code).toBe(3);
      expect(bogus.stderr).toContain('"mallory" is not an active console user');
      expect((await json(['cases', 'assign', '2', '--unassign'])).assignee).toBeNull();
      const history = await caseHistory(t.db.knex, '2');
      expect(history.slice(-2).map((e) => [e.kind, e.note, e.actor])).toEqual([
        ['assign', 'assigned to asha', 'asha@finance'],
        ['assign', 'unassigned (was asha)', 'asha@finance'],
      ]);
    }, 120_000);

    it('comment adds to the history and leaves state and version as they were', async () => {
      const before = (await getCase(t.db.knex, '3'))!;
      const after = await json(['cases', 'comment', '3', '--note', 'provider ticket 7781']);
      expect(after).toMatchObject({ state: 'open', version: before.version });
      expect(after.history.at(-1)).toMatchObject({ from: 'open', to: 'open', note: 'provider ticket 7781', actor: 'asha@finance' });
    }, 120_000);

    it('--csv prints every match, header first, refs whole', async () => {
      const res = await cli(['cases', 'list', '--csv', '--code', 'STATUS']);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(
        'case_id,version,state,code,currency,merchant_ref,transaction_ref,local,provider,difference,at_risk,at_risk_usdt,local_detail,provider_detail,opened_at,sla_breached,assignee,finding,resolution_reason,resolution_note',
      );
      expect(lines).toHaveLength(1 + 83);
      const one = (await getCase(t.db.knex, '5'))!;
      expect(res.stdout).toContain(`,${one.merchantRef},${one.transactionRef},,,,,,success,failed,`);
      // Money with the currency's decimals: case 6 (FEE, INR) local 1006.00, provider 1012.00.
      const fee = (await cli(['cases', 'list', '--csv', '--code', 'FEE'])).stdout.split('\n').find((l) => l.startsWith('6,'))!;
      expect(fee).toContain(',1006.00,1012.00,6.00,6.00,,,,');
    }, 120_000);

    it('--code takes a list, comma-separated or repeated; an unknown code is refused naming it', async () => {
      expect((await json(['cases', 'list', '--code', 'FEE,STATUS'])).total).toBe(166);
      expect((await json(['cases', 'list', '--code', 'fee', '--code', 'STATUS'])).total).toBe(166);
      const bad = await cli(['cases', 'list', '--code', 'FEE,BOGUS']);
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('"BOGUS" is not a finding code');
    }, 120_000);

    it('resolve --all-matching refuses without a filter, then resolves every match with one audit event each', async () => {
      const none = await cli(['cases', 'resolve', '--all-matching', '--reason', 'adjusted', '--note', 'x']);
      expect(none.code).toBe(3);
      expect(none.stderr).toContain('--all-matching: give at least one filter');
      // Issue 35 #8: an empty assignee (nobody's) is no filter: it would select the whole unassigned queue.
      const emptyAssignee = await cli(['cases', 'resolve', '--all-matching', '--assignee', '', '--reason', 'other', '--note', 'x']);
      expect(emptyAssignee.code, emptyAssignee.stdout).toBe(3);
      expect(emptyAssignee.stderr).toContain('--all-matching: give at least one filter');
      // Case 9 (FEE) is a colleague's: left to them, and named, unless --include-assigned.
      await cli(['cases', 'assign', '9', '--to', 'bo', '--as', 'bo']);
      const args = ['cases', 'resolve', '--all-matching', '--code', 'FEE', '--reason', 'adjusted', '--note', 'fees booked'];
      const dry = await cli([...args, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      const assigned = '1 case assigned to someone else would be left to them: #9 (bo); add --include-assigned to resolve them too\n';
      expect(dry.stdout).toBe(`dry run: 82 cases would be resolved (adjusted) of 83 matching\n${assigned}`);
      expect((await json(['cases', 'list', '--code', 'FEE'])).total).toBe(83);
      const res = await cli(args);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toBe(`82 cases resolved (adjusted) of 83 matching\n${assigned.replace('would be', 'were')}`);
      expect((await getCase(t.db.knex, '9'))!.state).toBe('open');
      const dryAll = await json([...args, '--include-assigned', '--dry-run']);
      expect(dryAll).toMatchObject({ dry_run: true, matched: 1, resolved: 1, assigned_elsewhere: [] });
      expect((await json([...args, '--include-assigned'])).resolved).toBe(1);
      expect((await json(['cases', 'list', '--code', 'FEE'])).total).toBe(0);
      expect((await caseHistory(t.db.knex, '3')).at(-1)).toMatchObject({ toState: 'resolved', reason: 'adjusted', note: 'fees booked' });
    }, 120_000);
  },
);
