import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { ProviderResponseError } from '../src/provider/errors.ts';
import {
  isNotFoundEnvelope,
  parseJsonBody,
  readArray,
  readEnvelope,
  readRecord,
  SHAPES,
  type ParseContext,
  type Shape,
} from '../src/provider/parse.ts';

const ctx: ParseContext = { operation: 'paymentFetch', httpStatus: 200, secrets: ['s3cr3t-value'] };

function data<S extends Shape = typeof SHAPES.paymentFetch>(body: string, shape: S = SHAPES.paymentFetch as unknown as S) {
  const env = readEnvelope(parseJsonBody(body, 'application/json', ctx), ctx);
  return readRecord(env.data, shape, 'data', ctx);
}

function errorOf(fn: () => unknown): ProviderResponseError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderResponseError);
    return err as ProviderResponseError;
  }
  throw new Error('expected a ProviderResponseError');
}

const order = (fields: string) =>
  `{"code":"200","message":"SUCCESS","data":{"transactionRef":"t-1","merchantRef":"m-1","currency":"INR","method":"NATIVE","status":"Success",${fields}}}`;

describe('amount parsing keeps exact decimal text', () => {
  it('keeps 0.1 and 0.2 exact and adds them to 0.3 in decimal', () => {
    const d = data(order('"amount":0.1,"paidAmount":0.2,"fee":0'));
    expect(d.amount).toBe('0.1');
    expect(d.paidAmount).toBe('0.2');
    expect(new Decimal(d.amount).plus(d.paidAmount).toFixed()).toBe('0.3');
  });

  it('keeps 12345678901234.56 exact whether sent as a number or as a string', () => {
    expect(data(order('"amount":12345678901234.56,"paidAmount":"12345678901234.56","fee":"0.00"'))).toMatchObject({
      amount: '12345678901234.56',
      paidAmount: '12345678901234.56',
      fee: '0',
    });
  });

  it('normalises trailing zeros and small exponents from JSON numbers', () => {
    expect(data(order('"amount":100.10,"paidAmount":1.5E+2,"fee":25e-1'))).toMatchObject({
      amount: '100.1',
      paidAmount: '150',
      fee: '2.5',
    });
  });

  it('rejects non-decimal amounts, naming the field and what was received', () => {
    const e = errorOf(() => data(order('"amount":"12,50","paidAmount":"1","fee":"0"')));
    expect(e.message).toBe(
      'paymentFetch: field "data.amount": expected a decimal amount (JSON number or numeric string), received "12,50"',
    );
    expect(e.detail).toMatchObject({ field: 'data.amount', received: '"12,50"' });
    expect(errorOf(() => data(order('"amount":"1e5","paidAmount":"1","fee":"0"'))).detail.field).toBe('data.amount');
    expect(errorOf(() => data(order('"amount":1e99999,"paidAmount":"1","fee":"0"'))).detail.field).toBe('data.amount');
    expect(errorOf(() => data(order('"amount":true,"paidAmount":"1","fee":"0"'))).detail.received).toBe('true');
  });
});

describe('hostile values are refused where they are parsed, naming the field and the value', () => {
  const forty = '1234567890123456789012345678901234567890';
  it.each([
    ['a negative fee', order('"amount":"100","paidAmount":"100","fee":"-5.00"'), 'data.fee', 'an amount of zero or more', '"-5.00"'],
    ['a negative amount as a JSON number', order('"amount":-100,"paidAmount":"100","fee":"0"'), 'data.amount', 'zero or more', '-100'],
    [
      'a forty-digit amount',
      order(`"amount":"${forty}","paidAmount":"1","fee":"0"`),
      'data.amount',
      'at most 15 digits before the point and 8 after (INR)',
      `"${forty}"`,
    ],
    [
      'a fee with forty decimals',
      order(`"amount":"1","paidAmount":"1","fee":"0.${forty}"`),
      'data.fee',
      'at most 15 digits',
      `"0.${forty}"`,
    ],
    ['an exponent beyond the digits', order('"amount":1e20,"paidAmount":"1","fee":"0"'), 'data.amount', 'at most 15 digits', '1e20'],
    [
      'a NUL in merchantRef',
      '{"code":"200","data":{"transactionRef":"t","merchantRef":"m\\u0000","currency":"INR","method":"NATIVE","status":"Success","amount":1,"paidAmount":1,"fee":0}}',
      'data.merchantRef',
      'text without control characters',
      '"m\\u0000"',
    ],
    [
      'an escape sequence in status',
      '{"code":"200","data":{"transactionRef":"t","merchantRef":"m","currency":"INR","method":"NATIVE","status":"\\u001b[31mRED","amount":1,"paidAmount":1,"fee":0}}',
      'data.status',
      'text without control characters',
      '"\\u001b[31mRED"',
    ],
  ])('%s', (_name, body, field, expected, shown) => {
    const e = errorOf(() => data(body));
    expect(e.detail).toMatchObject({ field, received: shown });
    expect(e.message).toContain(expected);
  });

  it('accepts a fee finer than the minor unit (a finding for the core, not a parse error) and a negative balance', () => {
    expect(data(order('"amount":"100","paidAmount":"100","fee":"0.005"')).fee).toBe('0.005');
    const balance = '{"code":"200","data":{"currency":"INR","available":"-12.50","pending":"0","held":"0","credit":"0"}}';
    expect(data(balance, SHAPES.balance).available).toBe('-12.5');
  });
});

describe('field shape checks', () => {
  it('names a missing field', () => {
    const e = errorOf(() => data(order('"amount":1,"fee":0')));
    expect(e.message).toContain('field "data.paidAmount": expected a decimal amount, received nothing');
  });

  it('names a mistyped string field, telling a number from a string', () => {
    const body =
      '{"code":"200","data":{"transactionRef":123,"merchantRef":"m","currency":"INR","method":"X","status":"Success","amount":1,"paidAmount":1,"fee":0}}';
    expect(errorOf(() => data(body)).message).toContain('field "data.transactionRef": expected a string, received 123');
  });

  it('accepts an absent or empty optional utr and drops unknown fields', () => {
    const base =
      '"transactionRef":"t","merchantRef":"m","currency":"INR","method":"IFSC","amount":1,"fee":0,"status":"Success","extra":{"x":1}';
    expect(data(`{"code":"200","data":{${base}}}`, SHAPES.payoutFetch)).toEqual({
      transactionRef: 't',
      merchantRef: 'm',
      currency: 'INR',
      method: 'IFSC',
      amount: '1',
      fee: '0',
      status: 'Success',
    });
    expect(data(`{"code":"200","data":{${base},"utr":""}}`, SHAPES.payoutFetch).utr).toBe('');
    expect(errorOf(() => data(`{"code":"200","data":{${base},"utr":5}}`, SHAPES.payoutFetch)).detail.field).toBe('data.utr');
  });

  it('validates each element of the bank list', () => {
    const env = readEnvelope(
      parseJsonBody('{"code":"200","data":[{"bankCode":"014","bankName":"BCA"},{"bankCode":"009"}]}', undefined, ctx),
      ctx,
    );
    expect(errorOf(() => readArray(env.data, SHAPES.bankEntry, 'data', ctx)).message).toContain('field "data[1].bankName"');
    expect(errorOf(() => readArray({ a: 1 }, SHAPES.bankEntry, 'data', ctx)).message).toContain('field "data": expected an array');
  });
});

describe('bodies that are not the envelope', () => {
  it('names an HTML page, by content type or by its first characters', () => {
    const html = '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>';
    expect(errorOf(() => parseJsonBody(html, 'text/html', ctx)).message).toContain('received an HTML page (HTTP 200)');
    expect(errorOf(() => parseJsonBody(`  ${html}`, 'application/json', ctx)).message).toContain('HTML page');
  });

  it('names malformed JSON and truncates what it shows to about 200 characters', () => {
    const e = errorOf(() => parseJsonBody(`{"code":"200","data":{"a":${'9'.repeat(500)}`, 'application/json', ctx));
    expect(e.message).toContain('body is not valid JSON');
    expect(e.detail.received!.length).toBeLessThan(240);
    expect(e.detail.received).toContain('(526 chars)');
  });

  it('names an empty body', () => {
    expect(errorOf(() => parseJsonBody('', 'application/json', ctx)).message).toContain('empty body');
  });

  it('scrubs secrets from what it echoes', () => {
    const e = errorOf(() => parseJsonBody('oops s3cr3t-value leaked', 'text/plain', ctx));
    expect(e.message).not.toContain('s3cr3t-value');
    expect(e.message).toContain('[redacted]');
  });

  it('requires an object with a string or numeric code', () => {
    expect(errorOf(() => readEnvelope(parseJsonBody('[1,2]', undefined, ctx), ctx)).message).toContain(
      'field "(body)": expected a JSON object',
    );
    expect(errorOf(() => readEnvelope(parseJsonBody('{"data":{}}', undefined, ctx), ctx)).message).toContain('field "code"');
    expect(readEnvelope(parseJsonBody('{"code":200,"message":"SUCCESS","data":null}', undefined, ctx), ctx)).toEqual({
      code: '200',
      message: 'SUCCESS',
      data: null,
    });
    expect(errorOf(() => readEnvelope(parseJsonBody('{"code":"200","message":7}', undefined, ctx), ctx)).detail.field).toBe('message');
  });
});

describe('not-found detection', () => {
  it.each([
    [{ code: '404', message: 'x' }, true],
    [{ code: '1001', message: 'Order not found' }, true],
    [{ code: '4004', message: 'ORDER_NOT_FOUND' }, true],
    [{ code: '500', message: 'Transaction does not exist' }, true],
    [{ code: '400', message: 'invalid transactionRef' }, true],
    [{ code: '400', message: 'amount too small' }, false],
    [{ code: '500', message: 'SYSTEM ERROR' }, false],
  ])('%j => %s', (env, expected) => {
    expect(isNotFoundEnvelope({ ...env, data: null })).toBe(expected);
  });
});
