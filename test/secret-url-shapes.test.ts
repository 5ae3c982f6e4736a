/**
 * A password in a mistyped connection URL never reaches any output: each shape below (a libpq
 * key/value string, a scheme missing "//" or ":", no scheme, a misspelt scheme, and for comparison
 * well-formed URLs that fail to connect) runs as a real `payrecon status` child process, as text and
 * with --json, and the password is searched for in everything it printed: the config error, the
 * `database` log line, the one-line failure and the JSON object.
 */
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './helpers/cli.ts';
import { requiresServer } from './helpers/db.ts';
import { problemsOf } from './helpers/config.ts';
import { redactUrl } from '../src/config/redact-url.ts';

const P = 'Pw-Kq7-secret';
/** The test server (trust auth ignores the password), so shapes that connect meet a real server. */
const H = '127.0.0.1';

const DATABASE_SHAPES: Array<[string, string]> = [
  ['libpq key/value', `host=${H} user=u password=${P} dbname=d`],
  ['scheme without ":"', `postgres//u:${P}@${H}:5432/d`],
  ['no scheme', `u:${P}@${H}:5432/d`],
  ['no scheme, user postgres', `postgres:${P}@${H}:5432/d`],
  ['scheme with one "/"', `postgres:/u:${P}@${H}:5432/d`],
  ['scheme without "//"', `postgres:u:${P}@${H}:5432/d`],
  ['misspelt scheme', `postgress://u:${P}@${H}:1/d`],
  ['well-formed, closed port', `postgres://u:${P}@${H}:1/d`],
  ['well-formed, no such database', `postgres://postgres:${P}@${H}:5432/payrecon_no_such_db`],
];

/** The other URL variables: secret, so refused values are hidden whole; odd shapes are refused too. */
const OTHER_SHAPES: Array<[string, string]> = [
  ['SMTP_URL', `smtp:u:${P}@mail:587`],
  ['SMTP_URL', `smtp//u:${P}@mail:587`],
  ['ALERT_WEBHOOK_URL', `https:u:${P}@hooks.example.com/x`],
  ['ALERT_WEBHOOK_URL', `hooks.example.com/services/${P}`],
];

/** Both modes: text (stderr: config error, JSON log lines, one-line failure) and --json (stdout). */
async function bothModes(env: Record<string, string>): Promise<CliResult[]> {
  const base = { LOG_LEVEL: 'info', LOG_FORMAT: 'json', DATABASE_QUERY_TIMEOUT_MS: '5000', ...env };
  return Promise.all([runCli(['status'], base), runCli(['status', '--json'], base)]);
}

describe.skipIf(requiresServer('the well-formed shapes connect to the test server'))('no password of any URL shape is printed', () => {
  it.each(DATABASE_SHAPES)(
    'DATABASE_URL, %s: not in the config error, database line, one-line failure or --json',
    async (_name, url) => {
      const [text, json] = await bothModes({ DATABASE_URL: url });
      for (const r of [text, json]) {
        expect(r.code, r.stdout + r.stderr).not.toBe(0);
        expect(r.stdout + r.stderr).not.toContain(P);
        expect(r.stdout + r.stderr).not.toContain(P.slice(0, 6));
      }
      // The run said something either way: a refusal (exit 3) or a failure naming the database (exit 2).
      expect(text.stderr).toMatch(/DATABASE_URL|failed \(database: postgres/);
      expect(JSON.parse(json.stdout).error).toBeTruthy();
    },
    60_000,
  );

  it.each(OTHER_SHAPES)(
    '%s=%s: refused, never shown',
    async (name, value) => {
      const [text, json] = await bothModes({ [name]: value });
      for (const r of [text, json]) {
        expect(r.code).toBe(3);
        expect(r.stdout + r.stderr).toContain(name);
        expect(r.stdout + r.stderr).not.toContain(P);
      }
    },
    60_000,
  );
});

describe('the shapes that used to pass validation are refused, showing the expected shape', () => {
  it.each([`postgres:/u:${P}@h:5432/d`, `postgres:u:${P}@h:5432/d`, `postgres:${P}@h:5432/d`, `postgresql:u:${P}@h/d`])('%s', (url) => {
    const problems = problemsOf({ DATABASE_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('postgres://user:password@host:5432/db');
    expect(problems[0]).not.toContain(P);
  });

  it('a well-formed URL still passes, with or without a password', () => {
    expect(problemsOf({ DATABASE_URL: `postgres://u:${P}@db:5432/x` })).toEqual([]);
    expect(problemsOf({ DATABASE_URL: 'postgresql://app@db/merchant' })).toEqual([]);
  });
});

describe('redactUrl hides whatever follows "user:" and any password= value', () => {
  it.each([...DATABASE_SHAPES.map(([, url]) => url), `host=h password='a b ${P}' user=u`, `postgres://u:123#${P}@h/d`])('%s', (url) => {
    const shown = redactUrl(url);
    expect(shown).not.toContain(P);
    expect(shown).toContain('[redacted]');
  });

  it('leaves a URL without a password readable', () => {
    expect(redactUrl('postgres://app@db:5432/merchant')).toBe('postgres://app@db:5432/merchant');
    expect(redactUrl('postgres://db:5432/merchant')).toBe('postgres://db:5432/merchant');
  });
});
