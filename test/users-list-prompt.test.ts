import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { BIN, ROOT, runCli, waitFor } from './helpers/cli.ts';
import { findUserByName, insertUser } from '../src/db/console-users.ts';
import { insertSession } from '../src/db/console-sessions.ts';

/** `payrecon <args>` on a pseudo-terminal (util-linux `script`), typing each answer once its prompt shows. */
async function onTerminal(args: string[], env: Record<string, string>, answers: Array<[prompt: string, typed: string]>) {
  const command = ['node', BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  let seen = 0;
  for (const [prompt, typed] of answers) {
    await waitFor(async () => output.indexOf(prompt, seen) >= 0);
    seen = output.indexOf(prompt, seen) + prompt.length;
    child.stdin.write(`${typed}\r`);
  }
  const code = await done;
  return { code, output };
}

describe.skipIf(requiresServer('payrecon users runs as its own process on the test database'))('payrecon users list and the prompt', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestDatabase('users_list');
    env = { DATABASE_URL: t.url!, LOG_LEVEL: 'warn' };
  });
  afterAll(() => t?.drop());

  it('users list shows name, role, disabled and last sign-in, as a table and as JSON', async () => {
    const empty = await runCli(['users', 'list'], env);
    expect(empty).toMatchObject({ code: 0, stdout: 'no console users yet: add one with payrecon users add <name> --role admin\n' });
    const now = new Date('2026-03-02T10:00:00Z');
    const ann = (await insertUser(t.db.knex, { name: 'ann', role: 'admin', passwordHash: 'x', now }))!;
    await insertUser(t.db.knex, { name: 'bob', role: 'viewer', passwordHash: 'x', now });
    await t.db.knex.raw(`UPDATE console_users SET disabled_at = now() WHERE name = 'bob'`);
    await insertSession(t.db.knex, { tokenHash: 'h1', userId: ann.id, csrfToken: 'c', address: '127.0.0.1', now });
    const later = new Date('2026-03-03T08:30:00Z');
    await insertSession(t.db.knex, { tokenHash: 'h2', userId: ann.id, csrfToken: 'c', address: '127.0.0.1', now: later });

    const table = await runCli(['users', 'list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(
      [
        'name  role    disabled  last sign-in',
        '----  ------  --------  ------------------------',
        'ann   admin   no        2026-03-03T08:30:00.000Z',
        'bob   viewer  yes',
        '',
      ].join('\n'),
    );
    const json = await runCli(['users', 'list', '--json'], env);
    expect(JSON.parse(json.stdout)).toEqual([
      { name: 'ann', role: 'admin', disabled: false, lastSignInAt: '2026-03-03T08:30:00.000Z' },
      { name: 'bob', role: 'viewer', disabled: true, lastSignInAt: null },
    ]);
  });

  it('users add without --password-stdin refuses when stdin is not a terminal, saying what to do', async () => {
    const res = await runCli(['users', 'add', 'cat', '--role', 'viewer'], env);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain(
      'password: stdin is not a terminal, so payrecon cannot prompt; pipe the password and add --password-stdin',
    );
    expect(await findUserByName(t.db.knex, 'cat')).toBeNull();
  });

  it('users add on a terminal prompts twice without echo and adds the user', async () => {
    const secret = 'typed on a terminal 42';
    const res = await onTerminal(['users', 'add', 'dee', '--role', 'finance'], env, [
      ['password: ', secret],
      ['password again: ', secret],
    ]);
    expect(res.code).toBe(0);
    expect(res.output).toContain('added dee (finance)');
    expect(res.output).not.toContain(secret);
    expect((await findUserByName(t.db.knex, 'dee'))!.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('users add on a terminal refuses two different entries', async () => {
    const res = await onTerminal(['users', 'add', 'eli', '--role', 'viewer'], env, [
      ['password: ', 'first long password'],
      ['password again: ', 'second long password'],
    ]);
    expect(res.code).toBe(3);
    expect(res.output).toContain('password: the two entries differ');
    expect(await findUserByName(t.db.knex, 'eli')).toBeNull();
  });
});
