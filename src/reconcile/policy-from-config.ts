import type { Config } from '../config/config.ts';
import { resolvePolicy } from '../recon/policy.ts';
import type { ReconPolicy } from '../recon/types.ts';

/** RECON_FIRST_CHECK_PAYMENT's default when the merchant runs the webhook receiver. */
export const PAYMENT_FIRST_CHECK_WITH_WEBHOOKS_MS = 60 * 60_000;

/**
 * The comparison policy from configuration plus the synced bank code lists. A currency with no
 * synced list is not judged (undefined), so a merchant who never ran `banks sync` sees no BANK_CODE noise.
 */
export function policyFromConfig(config: Config, bankCodes: ReadonlyMap<string, ReadonlySet<string>> = new Map()): ReconPolicy {
  return resolvePolicy({
    tolerances: config.RECON_TOLERANCE,
    // FEE_SCHEDULE_FILE: per currency, direction and method ("*" any other), validated when the configuration loads.
    feeSchedule: config.FEE_SCHEDULE_FILE,
    backoffMs: { payment: config.RECON_BACKOFF_PAYMENT, payout: config.RECON_BACKOFF_PAYOUT },
    firstCheckMs: {
      // Without the webhook receiver, checks are the only way a pay-in is seen final: no reason to wait.
      payment: config.RECON_FIRST_CHECK_PAYMENT ?? (config.WEBHOOK_EXPECTED ? PAYMENT_FIRST_CHECK_WITH_WEBHOOKS_MS : 0),
      payout: config.RECON_FIRST_CHECK_PAYOUT ?? 0,
    },
    knownBankCodes: (currency, code) => {
      const list = bankCodes.get(currency);
      return list && list.size > 0 ? list.has(code) : undefined;
    },
  });
}
