import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { accountFor, accountListing, configuredAccounts } from '../src/config/accounts.ts';
import { secretValues } from '../src/config/redact.ts';
import { createAccountClient } from '../src/provider/from-config.ts';
import { hmacSha256 } from '../src/provider/signing.ts';
import { problemsOf } from './helpers/config.ts';
import { runCli } from './helpers/cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-accounts-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Writes an accounts file and returns its path. */
function accountsFile(content: unknown): string {
  const file = path.join(dir, `accounts-${++n}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

const ngSecretFile = path.join(dir, 'ng.secret');
fs.writeFileSync(ngSecretFile, 'ng-secret-from-file\n');

const TWO = {
  accounts: [
    {
      id: 'in-main',
      displayName: 'India entity',
      baseUrl: 'https://in.provider.example',
      merchantId: 'M-IN',
      secret: { env: 'IN_MAIN_SECRET' },
      currencies: ['INR'],
      reportRecipients: ['fin-in@example.com'],
      journalAccounts: { wallet: { code: '1211', name: 'Wallet India' } },
      rateLimitPerSec: 40,
    },
    { id: 'ng-brand', merchantId: 'M-NG', secret: { file: ngSecretFile } },
  ],
};

describe('accounts without ACCOUNTS_FILE', () => {
  it('today’s variables define the one account "default"', () => {
    const config = loadConfig({
      PROVIDER_BASE_URL: 'http://127.0.0.1:4010',
      PROVIDER_MERCHANT_ID: 'm-1',
      PROVIDER_SECRET: 'k-1',
      RECON_CURRENCIES: 'NGN',
      REPORT_EMAIL_TO: 'a@example.com',
      PROVIDER_RATE_LIMIT: '25',
    });
    expect(configuredAccounts(config)).toEqual([
      {
        id: 'default',
        displayName: 'default',
        baseUrl: 'http://127.0.0.1:4010',
        merchantId: 'm-1',
        secret: 'k-1',
        secretSource: { kind: 'env', name: 'PROVIDER_SECRET' },
        currencies: ['NGN'],
        reportRecipients: ['a@example.com'],
        journalAccounts: {},
        rateLimitPerSec: 25,
      },
    ]);
    expect(accountFor(config, undefined).id).toBe('default');
    expect(accountFor(config, 'default').merchantId).toBe('m-1');
  });

  it('follows a config copied with an override (a test pointing at its sandbox)', () => {
    const config = { ...loadConfig({}), PROVIDER_BASE_URL: 'http://127.0.0.1:9999' };
    expect(accountFor(config, undefined).baseUrl).toBe('http://127.0.0.1:9999');
  });
});

describe('ACCOUNTS_FILE', () => {
  const env = { ACCOUNTS_FILE: accountsFile(TWO), IN_MAIN_SECRET: 'in-secret-from-env', RECON_CURRENCIES: 'INR,NGN' };

  it('reads every account, secrets from a variable or a file, keys left out taken from the variables', () => {
    const [india, nigeria] = configuredAccounts(loadConfig(env));
    expect(india).toMatchObject({
      id: 'in-main',
      displayName: 'India entity',
      baseUrl: 'https://in.provider.example',
      merchantId: 'M-IN',
      secret: 'in-secret-from-env',
      currencies: ['INR'],
      reportRecipients: ['fin-in@example.com'],
      journalAccounts: { wallet: { code: '1211', name: 'Wallet India' } },
      rateLimitPerSec: 40,
    });
    expect(nigeria).toMatchObject({
      id: 'ng-brand',
      displayName: 'ng-brand',
      baseUrl: undefined,
      merchantId: 'M-NG',
      secret: 'ng-secret-from-file',
      secretSource: { kind: 'file', path: ngSecretFile },
      currencies: ['INR', 'NGN'],
      reportRecipients: [],
      rateLimitPerSec: 0,
    });
  });

  it('--account is required with several accounts, and an unknown one is refused, naming the ids', () => {
    const config = loadConfig(env);
    expect(() => accountFor(config, undefined)).toThrow('--account: required, 2 accounts are configured (in-main, ng-brand)');
    expect(() => accountFor(config, 'gh-x')).toThrow('--account "gh-x": no such account; configured: in-main, ng-brand');
    expect(accountFor(config, 'ng-brand').merchantId).toBe('M-NG');
  });

  it('keeps every account’s secret out of listings and scrubs it from text', () => {
    const config = loadConfig(env);
    const listed = JSON.stringify(accountListing(config));
    expect(listed).not.toContain('in-secret-from-env');
    expect(listed).not.toContain('ng-secret-from-file');
    expect(accountListing(config).map((a) => a.secretFrom)).toEqual(['env IN_MAIN_SECRET', `file ${ngSecretFile}`]);
    expect(secretValues(config)).toEqual(expect.arrayContaining(['in-secret-from-env', 'ng-secret-from-file']));
  });

  it.each<[string, unknown, Record<string, string>, string]>([
    [
      'a missing merchantId',
      { accounts: [TWO.accounts[0], { id: 'ng-brand', secret: { env: 'X' } }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[1] (id "ng-brand"): merchantId: required',
    ],
    ['a missing secret', { accounts: [{ id: 'a', merchantId: 'M' }] }, {}, 'ACCOUNTS_FILE: accounts[0] (id "a"): secret: required'],
    [
      'a secret in the file itself',
      { accounts: [{ id: 'a', merchantId: 'M', secret: 'plain' }] },
      {},
      'ACCOUNTS_FILE: accounts[0] (id "a"): secret: expected {"env": "VARIABLE"} or {"file": "/path/to/secret"}',
    ],
    [
      'an unknown key',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { env: 'X' }, merchantID: 'typo' }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[0] (id "a"): merchantID: not a known key',
    ],
    [
      'a bad id',
      { accounts: [{ id: 'NG Brand', merchantId: 'M', secret: { env: 'X' } }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[0] (id "NG Brand"): id: expected lower-case letters',
    ],
    [
      'a currency payrecon does not know',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { env: 'X' }, currencies: ['USD'] }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[0] (id "a"): currencies.0: expected one of INR, NGN, IDR',
    ],
    [
      'a bad rate limit',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { env: 'X' }, rateLimitPerSec: '50' }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[0] (id "a"): rateLimitPerSec: expected a whole number',
    ],
    [
      'a bad journal role',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { env: 'X' }, journalAccounts: { purse: { code: '1', name: 'x' } } }] },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[0] (id "a"): journalAccounts.purse: expected a role',
    ],
    [
      'an id used twice',
      {
        accounts: [
          { id: 'a', merchantId: 'M1', secret: { env: 'X' } },
          { id: 'a', merchantId: 'M2', secret: { env: 'X' } },
        ],
      },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[1] (id "a"): id: already used by accounts[0]',
    ],
    [
      'a MerchantID used twice at one provider',
      {
        accounts: [
          { id: 'a', merchantId: 'M1', secret: { env: 'X' } },
          { id: 'b', merchantId: 'M1', secret: { env: 'X' } },
        ],
      },
      { X: 'x' },
      'ACCOUNTS_FILE: accounts[1] (id "b"): merchantId: M1 is already accounts[0]',
    ],
    [
      'a secret variable not set',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { env: 'A_SECRET' } }] },
      {},
      'ACCOUNTS_FILE: accounts[0] (id "a"): secret: the variable A_SECRET is not set',
    ],
    [
      'a secret file missing',
      { accounts: [{ id: 'a', merchantId: 'M', secret: { file: '/nonexistent/a.secret' } }] },
      {},
      'ACCOUNTS_FILE: accounts[0] (id "a"): secret: cannot read /nonexistent/a.secret',
    ],
    ['no accounts', { accounts: [] }, {}, 'ACCOUNTS_FILE: accounts: expected at least one account'],
    ['not JSON', '{"accounts": [', {}, 'ACCOUNTS_FILE: cannot read'],
    [
      'a key given twice',
      '{"accounts": [{"id": "a", "id": "b", "merchantId": "M", "secret": {"env": "X"}}]}',
      { X: 'x' },
      'is given twice, on line 1 and line 1',
    ],
  ])('refuses %s, naming the account and key', (_, content, extraEnv, expected) => {
    const problems = problemsOf({ ACCOUNTS_FILE: accountsFile(content), ...extraEnv });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it('a client per account signs with that account’s MerchantID and secret, at its base URL', async () => {
    const seen: Array<{ merchantId: string; signature: string; timestamp: string; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({
          merchantId: req.headers['merchantid'] as string,
          signature: req.headers['signature'] as string,
          timestamp: req.headers['timestamp'] as string,
          body,
        });
        res.end('{"code":"200","message":"SUCCESS","data":{"currency":"INR","deposit":"83.1","withdraw":84}}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const file = accountsFile({
      accounts: [
        { ...TWO.accounts[0], baseUrl: url },
        { ...TWO.accounts[1], baseUrl: url },
      ],
    });
    const config = loadConfig({ ACCOUNTS_FILE: file, IN_MAIN_SECRET: 'in-secret-from-env' });
    try {
      for (const id of ['in-main', 'ng-brand']) {
        const client = await createAccountClient(config, accountFor(config, id), { now: () => 1_700_000_000_000 });
        try {
          await client.usdtRate('INR');
        } finally {
          await client.close();
        }
      }
    } finally {
      server.close();
    }
    expect(seen.map((s) => s.merchantId)).toEqual(['M-IN', 'M-NG']);
    const expected = (merchantId: string, secret: string, s: (typeof seen)[number]) =>
      hmacSha256.sign({ timestamp: s.timestamp, body: s.body, merchantId }, secret);
    expect(seen[0].signature).toBe(expected('M-IN', 'in-secret-from-env', seen[0]));
    expect(seen[1].signature).toBe(expected('M-NG', 'ng-secret-from-file', seen[1]));
  });
});

describe('a bad ACCOUNTS_FILE at start', () => {
  it('stops a command before it opens anything (exit 3), naming the account and key, never showing a secret', async () => {
    const file = accountsFile({
      accounts: [
        { id: 'in-main', merchantId: 'M-IN', secret: { env: 'IN_MAIN_SECRET' } },
        { id: 'ng-brand', secret: { env: 'IN_MAIN_SECRET' } },
      ],
    });
    const pglite = path.join(dir, 'pglite');
    const env = { ACCOUNTS_FILE: file, IN_MAIN_SECRET: 'in-secret-from-env', PGLITE_DIR: pglite, LOG_FORMAT: 'text' };
    for (const args of [['reconcile'], ['accounts', 'list']]) {
      const result = await runCli(args, env, dir);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr).toContain('ACCOUNTS_FILE: accounts[1] (id "ng-brand"): merchantId: required');
      expect(result.stderr + result.stdout).not.toContain('in-secret-from-env');
    }
    expect(fs.existsSync(pglite)).toBe(false);
  });

  it('`accounts list` lists the accounts, `--json` as JSON, without the secrets', async () => {
    const env = { ACCOUNTS_FILE: accountsFile(TWO), IN_MAIN_SECRET: 'in-secret-from-env' };
    const text = await runCli(['accounts', 'list'], env, dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /in-main\s+India entity\s+M-IN\s+https:\/\/in\.provider\.example\s+INR\s+fin-in@example\.com\s+40\s+env IN_MAIN_SECRET/,
    );
    const json = await runCli(['accounts', 'list', '--json'], env, dir);
    expect(JSON.parse(json.stdout).map((a: { id: string }) => a.id)).toEqual(['in-main', 'ng-brand']);
    for (const out of [text.stdout, json.stdout]) {
      expect(out).not.toContain('in-secret-from-env');
      expect(out).not.toContain('ng-secret-from-file');
    }
  });
});
