import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.ts';

describe('a misspelt option or command', () => {
  it('prints the error, the suggestion and one line pointing to --help, not the whole help; exit 3', async () => {
    const res = await runCli(['reconcile', '--curency', 'INR'], {});
    expect(res.code).toBe(3);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      ["error: unknown option '--curency'", '(Did you mean --currency?)', "Run 'payrecon reconcile --help' for the options.", ''].join(
        '\n',
      ),
    );
  });

  it('names the nested command in the --help line', async () => {
    const res = await runCli(['users', 'ad'], {});
    expect(res.code).toBe(3);
    expect(res.stderr).toBe(
      ["error: unknown command 'ad'", '(Did you mean add?)', "Run 'payrecon users --help' for the options.", ''].join('\n'),
    );
  });
});
