import type { Config } from '../config/config.ts';
import { resolvePolicy } from '../recon/policy.ts';
import type { ReconPolicy } from '../recon/types.ts';

/**
 * The comparison policy from configuration plus the synced bank code lists. A currency with no
 * synced list is not judged (undefined), so a merchant who never ran `banks sync` sees no BANK_CODE noise.
 */
export function policyFromConfig(config: Config, bankCodes: ReadonlyMap<string, ReadonlySet<string>> = new Map()): ReconPolicy {
  return resolvePolicy({
    tolerances: config.RECON_TOLERANCE,
    backoffMs: { payment: config.RECON_BACKOFF_PAYMENT, payout: config.RECON_BACKOFF_PAYOUT },
    knownBankCodes: (currency, code) => {
      const list = bankCodes.get(currency);
      return list && list.size > 0 ? list.has(code) : undefined;
    },
  });
}
