import { describe, expect, it } from 'vitest';
import { statusOf } from '../src/console/error-status.ts';
import { UserInputError } from '../src/console/users.ts';
import { errorOf, messageOf } from '../src/domain/errors.ts';

describe('the console error page status', () => {
  it('takes the HTTP status a Fastify error carries', () => {
    expect(statusOf(Object.assign(new Error('body too large'), { statusCode: 413 }))).toBe(413);
    expect(statusOf(Object.assign(new Error('bad form'), { statusCode: 400 }))).toBe(400);
  });

  it('answers 400 for a refused input and 500 for anything else, whatever it claims', () => {
    expect(statusOf(new UserInputError('NAME: no user x'))).toBe(400);
    expect(statusOf(new Error('database gone'))).toBe(500);
    expect(statusOf(Object.assign(new Error('odd'), { statusCode: 200 }))).toBe(500);
    expect(statusOf({ statusCode: '404' })).toBe(500);
    expect(statusOf('a thrown string')).toBe(500);
  });
});

describe('errorOf and messageOf', () => {
  it('keep an Error as it is and make one of anything else thrown', () => {
    const e = new Error('boom');
    expect(errorOf(e)).toBe(e);
    expect(messageOf(e)).toBe('boom');
    expect(messageOf('plain text')).toBe('plain text');
    expect(errorOf(42)).toBeInstanceOf(Error);
    expect(messageOf(undefined)).toBe('undefined');
  });
});
