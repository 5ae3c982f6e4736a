import type { Config } from '../../config/config.ts';
import { configuredAccounts } from '../../config/accounts.ts';

/** The accounts a console page may filter by: their ids when several are configured, none with one (no selector, pages as before). */
export function consoleAccountIds(config: Config): readonly string[] {
  const ids = configuredAccounts(config).map((a) => a.id);
  return ids.length > 1 ? ids : [];
}
