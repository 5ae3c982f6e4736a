import { strayWarning } from '../../log/stray-output.ts';

/**
 * knex writes its warnings with stacks to stdout, into tables and --json output. A failed connection
 * is also thrown to the caller, who reports it in one line; other warnings go through the process's
 * logger (JSON under LOG_FORMAT=json), first line only.
 */
const knexWarning = (message: unknown) => {
  const text = String(message);
  if (!text.startsWith('Acquire connection error')) strayWarning('knex', text.split('\n')[0]);
};

export const KNEX_LOG = { warn: knexWarning, error: knexWarning, deprecate: knexWarning, debug: () => undefined };
