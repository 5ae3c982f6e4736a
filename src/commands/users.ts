import { printErr, printOut } from '../log/terminal.ts';
import os from 'node:os';
import type { Command } from 'commander';
import { withJob, type JobDeps } from '../runtime/with-job.ts';
import { addUser, changePassword, disableUser } from '../console/users.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';

/** The first line of stdin: a password is never an argument (it would sit in the shell history and ps). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) printErr('password (then Enter, then Ctrl-D): ');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? '';
}

/** Who ran the command, for the audit rows. */
const cliActor = () => ({ name: `cli:${process.env.PAYRECON_ACTOR || os.userInfo().username}` });

function withDb<T>(fn: (ctx: JobDeps) => Promise<T>): Promise<T> {
  return withJob('users', {}, fn);
}

export function registerUsers(program: Command): void {
  const users = program
    .command('users')
    .description('console users: add one with a role, disable one, change a password')
    .addHelpText(
      'after',
      examplesHelp([
        'printf \'%s\\n\' "$PASSWORD" | payrecon users add alice --role finance --password-stdin',
        'payrecon users passwd alice < new-password.txt',
        'payrecon users disable bob',
      ]),
    )
    .addHelpText(
      'after',
      `\nRoles: viewer reads and downloads; finance also resolves cases and reruns days; admin also manages users.\n${envHelp(DB_ENV)}`,
    );
  users
    .command('add <name>')
    .description('add a console user')
    .requiredOption('--role <role>', 'viewer, finance or admin')
    .requiredOption('--password-stdin', 'read the password (at least 12 characters) from the first line of stdin')
    .action(async (name: string, opts: { role: string }) => {
      const password = await readPassword();
      await withDb(async ({ db }) => {
        const user = await addUser(db.knex, { name, role: opts.role, password, actor: cliActor(), now: new Date() });
        printOut(`added ${user.name} (${user.role})\n`);
      });
      process.exitCode = EXIT.OK;
    });
  users
    .command('disable <name>')
    .description('disable a user and end their sessions')
    .action(async (name: string) => {
      await withDb(async ({ db }) => {
        const { sessionsEnded } = await disableUser(db.knex, name, cliActor(), new Date());
        printOut(`disabled ${name}; ${sessionsEnded} session(s) ended\n`);
      });
      process.exitCode = EXIT.OK;
    });
  users
    .command('passwd <name>')
    .description("set a user's password from the first line of stdin and end their sessions")
    .action(async (name: string) => {
      const password = await readPassword();
      await withDb(async ({ db }) => {
        const { sessionsEnded } = await changePassword(db.knex, name, password, cliActor(), new Date());
        printOut(`password of ${name} changed; ${sessionsEnded} session(s) ended\n`);
      });
      process.exitCode = EXIT.OK;
    });
}
