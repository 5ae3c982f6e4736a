import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from '../../db/knex-types.ts';
import { endSession, findSessionByTokenHash, insertSession, touchSession, type SessionRow } from '../../db/console-sessions.ts';
import { findUserByName } from '../../db/console-users.ts';
import { forgiveLoginFailures, reserveLoginAttempt, settleLoginFailure } from '../../db/console-login-failures.ts';
import { recordAction } from '../../db/console-actions.ts';
import { dummyHash, verifyPassword } from './passwords.ts';

export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
  /**
   * Failed logins allowed for one user name from one address within throttleWindowMs (one person's
   * mistakes). The name from anywhere gets NAME_LIMIT_FACTOR times as many (guesses spread over
   * addresses), an address ADDRESS_LIMIT_FACTOR times as many: behind a proxy every client shares its
   * address, and anyone's made-up names must not lock everyone out.
   */
  maxFailures: number;
  throttleWindowMs: number;
}

export const NAME_LIMIT_FACTOR = 4;
export const ADDRESS_LIMIT_FACTOR = 20;

export type Session = Pick<SessionRow, 'id' | 'userId' | 'userName' | 'role' | 'csrfToken' | 'createdAt'>;

const newToken = () => randomBytes(32).toString('base64url');
/** Only the hash is stored: the cookie value itself is in no table and no log. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export type LoginResult = { ok: true; token: string; session: Session } | { ok: false; reason: 'throttled' | 'invalid' };

/**
 * Checks a name and password. The attempt is reserved (counted) before the password is looked at, so
 * guessing stops at the limit whatever the guesses are and however many run at once; every failure
 * counts for the name from that address, for the name and for the address (see SessionPolicy). An unknown or disabled name costs the same hash as a wrong
 * password and gets the same answer.
 */
export async function login(
  db: Knex,
  policy: SessionPolicy,
  attempt: { name: string; password: string; address: string; now: Date },
): Promise<LoginResult> {
  const { name, address, now } = attempt;
  const since = new Date(now.getTime() - policy.throttleWindowMs);
  const limits = {
    pair: policy.maxFailures,
    name: policy.maxFailures * NAME_LIMIT_FACTOR,
    address: policy.maxFailures * ADDRESS_LIMIT_FACTOR,
  };
  const reservation = await reserveLoginAttempt(db, { name, address, at: now, since, limits });
  if (!reservation) {
    await recordAction(db, { at: now, actor: name, action: 'login-throttled', address });
    return { ok: false, reason: 'throttled' };
  }
  let user: Awaited<ReturnType<typeof findUserByName>>;
  let valid: boolean;
  try {
    user = await findUserByName(db, name);
    valid = await verifyPassword(user?.passwordHash ?? (await dummyHash()), attempt.password);
  } catch (err) {
    // Not verified, but it was an attempt: it counts as a failure rather than staying pending.
    await settleLoginFailure(db, reservation).catch(() => undefined);
    throw err;
  }
  if (!user || user.disabled || !valid) {
    await settleLoginFailure(db, reservation);
    await recordAction(db, { at: now, actor: name, action: 'login-failed', address });
    return { ok: false, reason: 'invalid' };
  }
  await forgiveLoginFailures(db, reservation);
  return {
    ok: true,
    ...(await startSession(db, { userId: user.id, userName: user.name, role: user.role, address, now, via: 'password' })),
  };
}

/** A new session for a user already identified (by password, or by the trusted proxy). */
export async function startSession(
  db: Knex,
  s: { userId: string; userName: string; role: Session['role']; address: string; now: Date; via: 'password' | 'proxy' },
): Promise<{ token: string; session: Session }> {
  const token = newToken();
  const csrfToken = newToken();
  const id = await insertSession(db, { tokenHash: tokenHash(token), userId: s.userId, csrfToken, address: s.address, now: s.now });
  await recordAction(db, { at: s.now, actor: s.userName, action: 'login', address: s.address, detail: { via: s.via, session: id } });
  return { token, session: { id, userId: s.userId, userName: s.userName, role: s.role, csrfToken, createdAt: s.now } };
}

/**
 * The live session for a cookie token, or null. A session past its idle or absolute limit, or of a
 * disabled user, is ended here (so it cannot come back) and null is returned.
 */
export async function resolveSession(db: Knex, policy: SessionPolicy, token: string, now: Date): Promise<Session | null> {
  const row = await findSessionByTokenHash(db, tokenHash(token));
  if (!row || row.endedAt) return null;
  const expired =
    now.getTime() - row.lastSeenAt.getTime() >= policy.idleMs
      ? 'idle-timeout'
      : now.getTime() - row.createdAt.getTime() >= policy.absoluteMs
        ? 'absolute-timeout'
        : row.userDisabled
          ? 'user-disabled'
          : null;
  if (expired) {
    await endSession(db, row.id, expired, now);
    return null;
  }
  await touchSession(db, row.id, now);
  return { id: row.id, userId: row.userId, userName: row.userName, role: row.role, csrfToken: row.csrfToken, createdAt: row.createdAt };
}

export async function logout(db: Knex, session: Session, address: string, now: Date): Promise<void> {
  await endSession(db, session.id, 'logout', now);
  await recordAction(db, { at: now, actor: session.userName, action: 'logout', address, detail: { session: session.id } });
}
