import { printOut } from '../log/terminal.ts';
import os from 'node:os';
import type { Command } from 'commander';
import type { JobDeps } from '../runtime/with-job.ts';
import { addUser, changePassword, disableUser, UserInputError } from '../console/users.ts';
import { listUsersWithSignIn } from '../db/console-users.ts';
import { promptPasswords } from '../cli-ui/password-prompt.ts';
import { renderTable } from '../cli-ui/table.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';

/** The first line of stdin: a password is never an argument (it would sit in the shell history and ps). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) return typedPassword();
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? '';
}

/** Asked on the terminal twice, without echo: a typo would otherwise lock the user out. */
async function typedPassword(): Promise<string> {
  const answers = await promptPasswords(['password: ', 'password again: ']);
  if (!answers) throw new UserInputError('password: not entered (cancelled)');
  const [first, again] = answers as [string, string];
  if (again !== first) throw new UserInputError('password: the two entries differ; run the command again');
  return first;
}

/** Without --password-stdin the password is typed; a script must pipe it instead of hanging on a prompt. */
function passwordSource(stdinFlag: boolean | undefined, example: string): Promise<string> {
  if (stdinFlag) return readPassword();
  if (!process.stdin.isTTY)
    throw new UserInputError(
      `password: stdin is not a terminal, so payrecon cannot prompt; pipe the password and add --password-stdin, e.g. ${example}`,
    );
  return typedPassword();
}

const when = (d: Date | null) => (d ? d.toISOString() : '');

/** Who ran the command, for the audit rows. */
const cliActor = () => ({ name: `cli:${process.env.PAYRECON_ACTOR || os.userInfo().username}` });

// The database modules load when a subcommand runs, not for --help or a usage error.
async function withDb<T>(fn: (ctx: JobDeps) => Promise<T>): Promise<T> {
  const { withJob } = await import('../runtime/with-job.ts');
  return withJob('users', {}, fn);
}

export function registerUsers(program: Command): void {
  const users = program
    .command('users')
    .description('console users: list them, add one with a role, disable one, change a password')
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon users list',
        'payrecon users add alice --role finance          # prompts for the password on a terminal',
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
    .command('list')
    .description('list console users: name, role, disabled, last sign-in')
    .option('--json', 'print the users as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withDb(async ({ db }) => {
        const found = await listUsersWithSignIn(db.knex);
        if (opts.json) {
          const rows = found.map((u) => ({
            name: u.name,
            role: u.role,
            disabled: u.disabled,
            lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
          }));
          printOut(`${JSON.stringify(rows, null, 2)}\n`);
        } else if (found.length === 0) {
          printOut('no console users yet: add one with payrecon users add <name> --role admin\n');
        } else {
          const rows = found.map((u) => [u.name, u.role, u.disabled ? 'yes' : 'no', when(u.lastSignInAt)]);
          printOut(renderTable(['name', 'role', 'disabled', 'last sign-in'], rows));
        }
      });
      process.exitCode = EXIT.OK;
    });
  users
    .command('add <name>')
    .description('add a console user; asks for the password on a terminal, or reads it with --password-stdin')
    .requiredOption('--role <role>', 'viewer, finance or admin')
    .option('--password-stdin', 'read the password (at least 12 characters) from the first line of stdin instead of prompting')
    .action(async (name: string, opts: { role: string; passwordStdin?: boolean }) => {
      const password = await passwordSource(
        opts.passwordStdin,
        `printf '%s\\n' "$PASSWORD" | payrecon users add ${name} --role ${opts.role} --password-stdin`,
      );
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
