import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { BIN, ROOT } from './helpers/cli.ts';
import { findUserByName } from '../src/db/console-users.ts';

function cli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

// A child process and this test share the database: a server, not one process's PGlite.
describe.skipIf(requiresServer('payrecon users runs as its own process on the test database'))('payrecon users', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestDatabase('console_users');
    env = { DATABASE_URL: t.url! };
  });
  afterAll(() => t?.drop());

  it('adds a user with a password from stdin, stored as an argon2id hash, never echoed', async () => {
    const res = await cli(['users', 'add', 'carol', '--role', 'finance', '--password-stdin'], env, 'a long enough password\n');
    expect(res).toMatchObject({ code: 0, stdout: 'added carol (finance)\n' });
    const user = (await findUserByName(t.db.knex, 'carol'))!;
    expect(user.role).toBe('finance');
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(res.stdout + res.stderr).not.toContain('a long enough password');
  });

  it('refuses a short password, an unknown role and a taken name with exit 3 and the field named', async () => {
    expect(await cli(['users', 'add', 'dan', '--role', 'finance', '--password-stdin'], env, 'short\n')).toMatchObject({ code: 3 });
    const role = await cli(['users', 'add', 'dan', '--role', 'root', '--password-stdin'], env, 'a long enough password\n');
    expect(role.code).toBe(3);
    expect(role.stderr).toContain('--role: expected one of viewer, finance, admin');
    const taken = await cli(['users', 'add', 'carol', '--role', 'viewer', '--password-stdin'], env, 'a long enough password\n');
    expect(taken.code).toBe(3);
    expect(taken.stderr).toContain('exists already');
  });

  it('changes a password and disables a user', async () => {
    const before = (await findUserByName(t.db.knex, 'carol'))!.passwordHash;
    expect(await cli(['users', 'passwd', 'carol'], env, 'another long password\n')).toMatchObject({ code: 0 });
    expect((await findUserByName(t.db.knex, 'carol'))!.passwordHash).not.toBe(before);
    expect(await cli(['users', 'disable', 'carol'], env)).toMatchObject({ code: 0 });
    expect((await findUserByName(t.db.knex, 'carol'))!.disabled).toBe(true);
    expect((await cli(['users', 'disable', 'carol'], env)).code).toBe(3);
  });
});
