import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config/config.ts';
import type { AccountSpec } from '../src/config/accounts-file.ts';
import { accountRecipientsOf, rerunRefusal, sendRefusal } from '../src/console/can-do.ts';

// What the console says it cannot do, with one account and with several (each may name its own provider
// base URL and report recipients).

const spec = (id: string, extra: Partial<AccountSpec> = {}): AccountSpec => ({
  id,
  merchantId: `M-${id}`,
  secret: 'not-used',
  secretSource: { kind: 'env', name: 'X' },
  ...extra,
});
const withAccounts = (base: Config, accounts: AccountSpec[]): Config => ({ ...base, ACCOUNTS_FILE: { file: 'accounts.json', accounts } });

describe('the console: reruns and sends it refuses', () => {
  const one = loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/x', SMTP_URL: 'smtp://127.0.0.1:2525' });

  it.each([
    {
      name: 'one account, no PROVIDER_BASE_URL: refused as before',
      config: one,
      refused: 'no payments provider is configured for this console (PROVIDER_BASE_URL is not set)',
    },
    { name: 'one account with PROVIDER_BASE_URL', config: { ...one, PROVIDER_BASE_URL: 'http://p.example' }, refused: null },
    {
      name: 'several accounts, each with its own baseUrl and no PROVIDER_BASE_URL',
      config: withAccounts(one, [spec('a', { baseUrl: 'http://a.example' }), spec('b', { baseUrl: 'http://b.example' })]),
      refused: null,
    },
    {
      name: 'several accounts, one without a baseUrl: named',
      config: withAccounts(one, [spec('a', { baseUrl: 'http://a.example' }), spec('b')]),
      refused: 'no payments provider is configured for account b (no baseUrl in ACCOUNTS_FILE, and PROVIDER_BASE_URL is not set)',
    },
  ])('rerun: $name', ({ config, refused }) => {
    const said = rerunRefusal(config);
    if (refused === null) expect(said).toBeNull();
    else expect(said).toContain(refused);
  });

  it('send: an account with its own recipients needs no REPORT_EMAIL_TO; one without is refused, saying where to set them', () => {
    const several = withAccounts(one, [spec('a', { reportRecipients: ['a@finance.example'] }), spec('b')]);
    expect(sendRefusal(several, accountRecipientsOf(several, 'a'))).toBeNull();
    expect(sendRefusal(several, accountRecipientsOf(several, 'b'))).toContain('no reportRecipients in ACCOUNTS_FILE');
    // One account: REPORT_EMAIL_TO as before.
    expect(accountRecipientsOf(one, 'default')).toBeUndefined();
    expect(sendRefusal(one, undefined)).toBe('no accounting address is configured (REPORT_EMAIL_TO is not set).');
    expect(sendRefusal({ ...one, REPORT_EMAIL_TO: ['x@finance.example'] }, undefined)).toBeNull();
    expect(sendRefusal({ ...one, SMTP_URL: undefined }, accountRecipientsOf(several, 'a'))).toBe(
      'e-mail is not configured (SMTP_URL is not set).',
    );
  });
});
