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
  it('defaults: no fee schedule, default accounts, no base currency (never USDT), no rates, USDT not at par, "Tax Exempt"', () => {
    const c = loadConfig({});
    expect(c.FEE_SCHEDULE_FILE).toEqual({});
    expect(c.JOURNAL_ACCOUNTS_FILE).toEqual({});
    expect(c.JOURNAL_BASE_CURRENCY).toBe('');
    expect(c.JOURNAL_RATES_FILE.size).toBe(0);
    expect(c.JOURNAL_USDT_AT_PAR).toBe(false);
    expect(c.JOURNAL_XERO_TAX_RATE).toBe('Tax Exempt');
    expect(c.JOURNAL_FX_REVALUATION).toBe(false);
  });

  it('JOURNAL_FX_REVALUATION: on or off', () => {
    expect(loadConfig({ JOURNAL_FX_REVALUATION: 'on' }).JOURNAL_FX_REVALUATION).toBe(true);
    expect(loadConfig({ JOURNAL_FX_REVALUATION: 'off' }).JOURNAL_FX_REVALUATION).toBe(false);
    expect(() => loadConfig({ JOURNAL_FX_REVALUATION: 'yes' })).toThrow(/JOURNAL_FX_REVALUATION: expected on or off/);
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
  });

  it('JOURNAL_BASE_CURRENCY: any ISO 4217 code (USD, EUR, GBP, SGD, …), never USDT', () => {
    for (const code of ['USD', 'EUR', 'GBP', 'SGD', 'INR', 'jpy'])
      expect(loadConfig({ JOURNAL_BASE_CURRENCY: code }).JOURNAL_BASE_CURRENCY).toBe(code.toUpperCase());
    expect(() => loadConfig({ JOURNAL_BASE_CURRENCY: 'USDT' })).toThrow(
      /JOURNAL_BASE_CURRENCY: expected .*ISO 4217 code.*JOURNAL_USDT_AT_PAR/,
    );
    expect(() => loadConfig({ JOURNAL_BASE_CURRENCY: 'XYZ' })).toThrow(/JOURNAL_BASE_CURRENCY: expected/);
  });

  it('JOURNAL_RATES_FILE: date,currency,rate rows read at start; a bad row stops the start naming the row and the fix', () => {
    const good = file('rates.csv', 'date,currency,rate\n2026-01-02,INR,0.01198\n2026-01-02,NGN,0.00065\n');
    expect([...loadConfig({ JOURNAL_RATES_FILE: good }).JOURNAL_RATES_FILE]).toEqual([
      ['2026-01-02:INR', { rate: '0.01198', source: 'JOURNAL_RATES_FILE row 2' }],
      ['2026-01-02:NGN', { rate: '0.00065', source: 'JOURNAL_RATES_FILE row 3' }],
    ]);
    const bad = (name: string, body: string) => () => loadConfig({ JOURNAL_RATES_FILE: file(name, body) });
    expect(bad('r1.csv', 'day,cur,r\n')).toThrow(/JOURNAL_RATES_FILE: .*row 1: expected the header date,currency,rate/);
    expect(bad('r2.csv', 'date,currency,rate\n2026-01-02,INR,0,012\n')).toThrow(/row 2: expected three columns/);
    expect(bad('r3.csv', 'date,currency,rate\n2026-01-02,INR,0.01\n02/01/2026,INR,0.01\n')).toThrow(
      /row 3: date "02\/01\/2026": expected YYYY-MM-DD/,
    );
    expect(bad('r4.csv', 'date,currency,rate\n2026-01-02,INR,-1\n')).toThrow(
      /row 2: rate "-1": expected a positive decimal, the base currency per 1 INR/,
    );
    expect(bad('r5.csv', 'date,currency,rate\n2026-01-02,INR,0.01\n2026-01-02,INR,0.02\n')).toThrow(
      /row 3: 2026-01-02 INR is already on row 2/,
    );
  });
});
