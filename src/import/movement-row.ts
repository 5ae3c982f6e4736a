import { CURRENCIES, CURRENCY_DECIMALS, Decimal, isCurrency } from '../money/decimal.ts';
import { KIND_DIRECTION, MOVEMENT_DIRECTIONS, MOVEMENT_KINDS, type MovementDirection, type MovementKind } from '../domain/movements.ts';
import type { MovementInput } from '../db/movements.ts';
import { RowError, amount, rowProblems, text, timestamp } from './import-row.ts';

/** The columns of a movements CSV (docs/reference/movements.md). */
export const MOVEMENT_COLUMNS = {
  required: ['reference', 'currency', 'direction', 'amount', 'occurred_at', 'kind', 'usdt_amount', 'note'],
  optional: ['occurred_until', 'usdt_rate'],
} as const;

const USDT_DECIMALS = 6;
const MAX_NOTE = 500;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const FORMULA_START = /^[=+\-@]/;

export type MovementRowResult = { ok: true; movement: MovementInput } | { ok: false; reason: string };

function oneOfList<T extends string>(field: string, v: string, values: readonly T[]): T {
  const lower = v.toLowerCase();
  const found = values.find((x) => x === lower);
  if (!found) throw new RowError(`${field}: ${JSON.stringify(v)} is not one of ${values.join(', ')}; write one of them`);
  return found;
}

function note(v: string): string {
  if (CONTROL.test(v)) throw new RowError('note: contains a control character; remove it');
  if (FORMULA_START.test(v))
    throw new RowError(`note: starts with "${v[0]}" (would run as a spreadsheet formula); start it with a letter or digit`);
  if (v.length > MAX_NOTE) throw new RowError(`note: longer than ${MAX_NOTE} characters; shorten it`);
  return v;
}

/** Validates one CSV record (header name -> trimmed value) into a movement, or names every problem with its fix. */
export function validateMovementRow(rec: Readonly<Record<string, string>>): MovementRowResult {
  const { problems, check } = rowProblems();
  const get = (k: string) => rec[k] ?? '';
  const reference = check(() => text('reference', get('reference'), true)!);
  const currency = get('currency').toUpperCase();
  if (!isCurrency(currency)) problems.push(`currency: ${JSON.stringify(get('currency'))} is not one of ${CURRENCIES.join(', ')}`);
  const direction = check(() => oneOfList<MovementDirection>('direction', get('direction'), MOVEMENT_DIRECTIONS));
  const kind = check(() => oneOfList<MovementKind>('kind', get('kind'), MOVEMENT_KINDS));
  const decimals = isCurrency(currency) ? CURRENCY_DECIMALS[currency] : 2;
  const value = check(() => amount('amount', get('amount'), currency, decimals, true)!);
  if (value !== null && new Decimal(value).isZero()) problems.push('amount: must be above zero (a movement of nothing is not a movement)');
  const from = check(() => timestamp('occurred_at', get('occurred_at'), true)!);
  const until = check(() => timestamp('occurred_until', get('occurred_until'), false));
  if (from && until && until < from) problems.push('occurred_until: before occurred_at; give the interval earliest first');
  const usdtAmount = check(() => amount('usdt_amount', get('usdt_amount'), 'USDT', USDT_DECIMALS, false));
  if (usdtAmount !== null && new Decimal(usdtAmount).isZero())
    problems.push('usdt_amount: must be above zero, or left empty when the movement had no USDT leg');
  const usdtRate = check(() => amount('usdt_rate', get('usdt_rate'), 'USDT', 12, false));
  if (usdtRate !== null && new Decimal(usdtRate).isZero())
    problems.push('usdt_rate: must be above zero, or left empty to use the day’s quoted rate');
  const noteText = check(() => note(get('note')));
  if (kind && direction && KIND_DIRECTION[kind] && KIND_DIRECTION[kind] !== direction) {
    problems.push(`direction: a ${kind} is always "${KIND_DIRECTION[kind]}"; fix the direction or the kind`);
  }
  if (problems.length || !reference || !direction || !kind || !value || !from || noteText === null || !isCurrency(currency)) {
    return { ok: false, reason: problems.join('; ') };
  }
  return {
    ok: true,
    movement: {
      reference,
      currency,
      direction,
      amount: value,
      occurredFrom: from,
      occurredTo: until ?? from,
      kind,
      usdtAmount,
      usdtRate,
      note: noteText,
    },
  };
}
