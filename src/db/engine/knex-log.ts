import { printErr } from '../../log/terminal.ts';

/**
 * knex writes its warnings with stacks to stdout, into tables and --json output. A failed connection
 * is also thrown to the caller, who reports it in one line; other warnings go to stderr, first line only.
 */
const knexWarning = (message: unknown) => {
  const text = String(message);
  if (!text.startsWith('Acquire connection error')) printErr(`knex: ${text.split('\n')[0]}\n`);
};

export const KNEX_LOG = { warn: knexWarning, error: knexWarning, deprecate: knexWarning, debug: () => undefined };
