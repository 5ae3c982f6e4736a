/**
 * Bad command-line values are refused before any work: the real CLI as a child process, with a
 * DATABASE_URL pointing at a local TCP listener that counts connections. Exit 3, a message naming
 * the option, and zero connections prove nothing was attempted.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';

describe.concurrent('command-line values are rejected before any work (exit 3, no database connection)', () => {
  let server: net.Server;
  let connections = 0;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    env = {
      DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/none`,
      PROVIDER_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    [['reconcile', '--date', '../../etc'], '--date'],
    [['reconcile', '--date', '2026-02-30'], '--date'],
    [['reconcile', '--date', '2026-1-05'], '--date'],
    [['reconcile', '--from', '2026-01-02', '--to', '2026-01-01'], '--to'],
    [['reconcile', '--from', '2026-01-02'], '--from'],
    [['reconcile', '--date', '2026-01-01', '--ref', 'abc'], '--date'],
    [['reconcile', '--currency', 'USD'], '--currency'],
    [['reconcile', '--kind', 'refund'], '--kind'],
    [['reconcile', '--ref', "x'; DROP TABLE payment_orders;--"], '--ref'],
    [['reconcile', '--ref', '../../etc/passwd'], '--ref'],
    [['report', '--date', '../x'], '../x'],
    [['report', '--date', '2026-02-30'], '2026-02-30'],
    [['reconcile', '--no-such-option'], '--no-such-option'],
    [['banks', 'list', '--currency', 'USD'], '--currency'],
  ])('payrecon %j', async (args, names) => {
    const before = connections;
    const r = await runCli(args, env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(names);
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // a message, not a stack trace
    expect(connections - before).toBe(0);
  });

  it('banks list --currency INR says INR has no bank list, instead of suggesting a sync', async () => {
    const r = await runCli(['banks', 'list', '--currency', 'inr'], env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/INR has no bank list.*IDR and NGN/);
    expect(r.stdout + r.stderr).not.toMatch(/banks sync/);
  });

  it('report --email without REPORT_EMAIL_TO names the variable, before any connection', async () => {
    const before = connections;
    const r = await runCli(['report', '--date', '2026-01-01', '--email'], env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('REPORT_EMAIL_TO');
    expect(connections - before).toBe(0);
  });

  it('a bad configuration variable stops every command with its name, before any connection', async () => {
    const before = connections;
    for (const [name, value] of [
      ['RECON_BATCH_SIZE', '0'],
      ['ALERT_REPEAT_AFTER_MS', 'soon'],
      ['WEBHOOK_TIMESTAMP_WINDOW_SEC', '5'],
    ]) {
      const r = await runCli(['reconcile', '--date', '2026-01-01'], { ...env, [name]: value });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(`${name}: `);
    }
    expect(connections - before).toBe(0);
  });
});
