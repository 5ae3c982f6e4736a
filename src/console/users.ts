import type { Knex } from '../db/knex-types.ts';
import { disableUser as disableUserRow, insertUser, setPasswordHash, ROLES, type ConsoleUser, type Role } from '../db/console-users.ts';
import { endUserSessions } from '../db/console-sessions.ts';
import { recordAction } from '../db/console-actions.ts';
import { hashPassword, passwordProblem } from './auth/passwords.ts';
import { UsageError } from '../domain/errors.ts';

/** A refused user change: the message names the field and what is expected. */
export class UserInputError extends UsageError {}

const NAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

export function checkName(name: string): string {
  if (!NAME.test(name))
    throw new UserInputError(`NAME: expected lower-case letters, digits, ".", "_", "@" or "-", up to 64 (got ${JSON.stringify(name)})`);
  return name;
}

export function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role))
    throw new UserInputError(`--role: expected one of ${ROLES.join(', ')} (got ${JSON.stringify(role)})`);
  return role as Role;
}

function checkPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw new UserInputError(`password: ${problem}`);
  return password;
}

export interface Actor {
  name: string;
  address?: string;
}

export async function addUser(
  db: Knex,
  u: { name: string; role: string; password: string; actor: Actor; now: Date },
): Promise<ConsoleUser> {
  const name = checkName(u.name);
  const role = checkRole(u.role);
  const passwordHash = await hashPassword(checkPassword(u.password));
  const user = await insertUser(db, { name, role, passwordHash, now: u.now });
  if (!user) throw new UserInputError(`NAME: a user ${name} exists already (use users passwd to change the password)`);
  await recordAction(db, {
    at: u.now,
    actor: u.actor.name,
    action: 'user-added',
    target: name,
    address: u.actor.address,
    detail: { role },
  });
  return user;
}

/** Disables a user and ends every session they have. */
export async function disableUser(db: Knex, name: string, actor: Actor, now: Date): Promise<{ sessionsEnded: number }> {
  if (!(await disableUserRow(db, checkName(name), now))) throw new UserInputError(`NAME: no enabled user ${name}`);
  const sessionsEnded = await endUserSessions(db, name, 'user-disabled', now);
  await recordAction(db, {
    at: now,
    actor: actor.name,
    action: 'user-disabled',
    target: name,
    address: actor.address,
    detail: { sessionsEnded },
  });
  return { sessionsEnded };
}

/** Sets a new password and ends every session signed in with the old one. */
export async function changePassword(
  db: Knex,
  name: string,
  password: string,
  actor: Actor,
  now: Date,
): Promise<{ sessionsEnded: number }> {
  const passwordHash = await hashPassword(checkPassword(password));
  if (!(await setPasswordHash(db, checkName(name), passwordHash, now))) throw new UserInputError(`NAME: no user ${name}`);
  const sessionsEnded = await endUserSessions(db, name, 'password-changed', now);
  await recordAction(db, {
    at: now,
    actor: actor.name,
    action: 'password-changed',
    target: name,
    address: actor.address,
    detail: { sessionsEnded },
  });
  return { sessionsEnded };
}
