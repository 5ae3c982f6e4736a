// A misspelled key in .env is refused with the closest name; the shared environment is not checked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnv } from '../src/config/config.ts';
import { ConfigError } from '../src/config/errors.ts';
import { closestName } from '../src/config/did-you-mean.ts';
import { runCli } from './helpers/cli.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-dotenv-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const dotenv = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe('.env keys', () => {
  it('refuses an unknown key with a "did you mean", naming the file', () => {
    const file = dotenv('typo.env', 'DATABSE_URL=postgres://app@db/merchant\nREPORT_TIMEZONE=Asia/Kolkata\n');
    const err = (() => {
      try {
        readEnv({}, file);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([`${file}: DATABSE_URL is not a payrecon variable; did you mean DATABASE_URL?`]);
  });

  it('lists every unknown key, pointing at .env.example when nothing is close', () => {
    const file = dotenv('two.env', 'PROVIDR_SECRET=x\nCOMPLETELY_UNRELATED=1\n');
    expect(() => readEnv({}, file)).toThrow(ConfigError);
    try {
      readEnv({}, file);
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([
        `${file}: PROVIDR_SECRET is not a payrecon variable; did you mean PROVIDER_SECRET?`,
        `${file}: COMPLETELY_UNRELATED is not a payrecon variable (.env.example lists them all)`,
      ]);
    }
  });

  it('accepts known keys and NODE_ENV, and leaves unknown environment variables alone', () => {
    const file = dotenv('good.env', 'DATABASE_URL=postgres://app@db/merchant\nNODE_ENV=development\n');
    const env = readEnv({ DATABSE_URL: 'typo in the shared environment', HOME: '/root' }, file);
    expect(env.DATABASE_URL).toBe('postgres://app@db/merchant');
    expect(env.DATABSE_URL).toBe('typo in the shared environment');
  });

  it('closestName: small typos and case, nothing for unrelated names', () => {
    const names = ['DATABASE_URL', 'DATABASE_SCHEMA', 'PROVIDER_SECRET'];
    expect(closestName('DATABSE_URL', names)).toBe('DATABASE_URL');
    expect(closestName('database_url', names)).toBe('DATABASE_URL');
    expect(closestName('DATABASE_SCHEME', names)).toBe('DATABASE_SCHEMA');
    expect(closestName('SMTP_HOST', names)).toBeUndefined();
  });

  it('the CLI stops with exit 3 before doing anything', async () => {
    const cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
    fs.writeFileSync(path.join(cwd, '.env'), 'DATABSE_URL=postgres://app@db/merchant\n');
    const r = await runCli(['status'], {}, cwd);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('.env: DATABSE_URL is not a payrecon variable; did you mean DATABASE_URL?');
    expect(fs.existsSync(path.join(cwd, '.data'))).toBe(false);
  });
});
