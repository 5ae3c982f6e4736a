import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-journal-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name: string, body: unknown) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};

describe('journal and fee schedule settings', () => {
  it('defaults: no fee schedule, default accounts, USDT base, "Tax Exempt"', () => {
    const c = loadConfig({});
    expect(c.FEE_SCHEDULE_FILE).toEqual({});
    expect(c.JOURNAL_ACCOUNTS_FILE).toEqual({});
    expect(c.JOURNAL_BASE_CURRENCY).toBe('USDT');
    expect(c.JOURNAL_XERO_TAX_RATE).toBe('Tax Exempt');
  });

  it('FEE_SCHEDULE_FILE switches the fee schedule on, per currency, direction and method', () => {
    const schedule = { INR: { payment: { UPI: { percent: '1.5', fixed: '0', min: '1', max: '500' }, '*': { percent: '2', fixed: '3' } } } };
    const c = loadConfig({ FEE_SCHEDULE_FILE: file('fees.json', schedule) });
    expect(policyFromConfig(c).feeSchedule).toEqual(schedule);
  });

  it.each([
    [
      'fees-bad-key.json',
      { INR: { payment: { UPI: { percent: '1,5', fixed: '0' } } } },
      /FEE_SCHEDULE_FILE: .*key "INR.payment.UPI.percent": expected a non-negative decimal/,
    ],
    ['fees-currency.json', { USD: {} }, /FEE_SCHEDULE_FILE: .*key "USD"/],
    [
      'fees-minmax.json',
      { NGN: { payout: { BANK: { percent: '1', fixed: '0', min: '10', max: '5' } } } },
      /key "NGN.payout.BANK": min above max/,
    ],
    ['fees-not-json.json', '{INR:', /FEE_SCHEDULE_FILE: cannot read .* as JSON/],
  ])('a bad fee schedule (%s) stops the start with the variable and key named', (name, body, message) => {
    expect(() => loadConfig({ FEE_SCHEDULE_FILE: file(name, body) })).toThrow(message);
  });

  it('JOURNAL_ACCOUNTS_FILE takes roles and role:CUR keys, and names a bad key', () => {
    const accounts = { wallet: { code: '1210', name: 'Provider wallet' }, 'fees:INR': { code: '6110', name: 'Provider fees INR' } };
    expect(loadConfig({ JOURNAL_ACCOUNTS_FILE: file('accounts.json', accounts) }).JOURNAL_ACCOUNTS_FILE).toEqual(accounts);
    expect(() => loadConfig({ JOURNAL_ACCOUNTS_FILE: file('accounts-bad.json', { walet: { code: '1', name: 'x' } }) })).toThrow(
      /JOURNAL_ACCOUNTS_FILE: .*key "walet": expected a role/,
    );
    expect(() => loadConfig({ JOURNAL_ACCOUNTS_FILE: file('accounts-noname.json', { wallet: { code: '1' } }) })).toThrow(
      /key "wallet.name"/,
    );
    expect(() => loadConfig({ JOURNAL_BASE_CURRENCY: 'EUR' })).toThrow(/JOURNAL_BASE_CURRENCY: expected USDT or one of INR, NGN, IDR/);
  });
});
