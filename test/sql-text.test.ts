import { describe, expect, it } from 'vitest';
import { bindingsOf, param, sql } from '../src/db/sql-text.ts';

describe('sql: parameters named where they stand', () => {
  const from = param('from');
  const to = param('to');

  it('puts ? where each parameter stands and binds by name, in text order', () => {
    const q = sql`SELECT 1 WHERE a >= ${from}::timestamptz AND a < ${to}::timestamptz AND b >= ${from}::timestamptz`;
    expect(q.text).toBe('SELECT 1 WHERE a >= ?::timestamptz AND a < ?::timestamptz AND b >= ?::timestamptz');
    expect(bindingsOf(q, { to: 'T', from: 'F' })).toEqual(['F', 'T', 'F']);
  });

  it('a fragment brings its parameters to where it is spliced in', () => {
    const narrow = sql`AND c = ${param('zone')}`;
    const q = sql`SELECT ${'x.id'} FROM x WHERE a = ${from} ${narrow} AND b = ${to}`;
    expect(q.text).toBe('SELECT x.id FROM x WHERE a = ? AND c = ? AND b = ?');
    expect(bindingsOf(q, { from: 'F', to: 'T', zone: 'Z' })).toEqual(['F', 'Z', 'T']);
  });

  it('a condition added before the others does not shift them', () => {
    const before = sql`WHERE a = ${from} AND b = ${to}`;
    const after = sql`WHERE z = ${param('zone')} AND a = ${from} AND b = ${to}`;
    const values = { from: 'F', to: 'T' };
    expect(bindingsOf(before, values)).toEqual(['F', 'T']);
    expect(bindingsOf(after, { ...values, zone: 'Z' })).toEqual(['Z', 'F', 'T']);
  });

  it.each<{ name: string; values: Record<string, string>; error: string }>([
    { name: 'a parameter without a value', values: { from: 'F' }, error: "no value for the query's parameter to" },
    { name: 'a value no parameter takes', values: { from: 'F', to: 'T', form: 'F' }, error: 'no parameter named form' },
  ])('refuses $name', ({ values, error }) => {
    expect(() => bindingsOf(sql`a = ${from} AND b = ${to}`, values)).toThrow(error);
  });

  it('refuses a ? in constant text, where no name stands for it', () => {
    expect(() => sql`a = ? AND b = ${to}`).toThrow('name the parameter with param()');
    expect(() => sql`a = ${'?'}`).toThrow('name the parameter with param()');
  });
});
