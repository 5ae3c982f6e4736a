import type { Currency } from '../money/decimal.ts';
import type { ProviderClient } from './client.ts';
import type { BankEntry } from './types.ts';

/** Bank lists per currency, shared across checks of one run so the lookup is called once. */
export type BankCodeCache = Map<'IDR' | 'NGN', Promise<readonly BankEntry[]>>;

export interface BankCodeCheck {
  ok: boolean;
  bankName?: string;
  /** Why not ok, for the operator. */
  reason?: string;
}

/** Indian Financial System Code: 4 bank letters, a zero, 6 branch characters. */
export const IFSC_PATTERN = /^[A-Z]{4}0[A-Z0-9]{6}$/;

/**
 * Spec rule 3: confirm a payout's bankCode before initiating. IDR and NGN codes must be in the
 * provider's current list (compared as text: leading zeros matter); INR takes an IFSC directly.
 * Provider failures propagate as ProviderError; a failed lookup is not cached.
 */
export async function checkBankCode(
  client: Pick<ProviderClient, 'bankCodes'>,
  currency: Currency,
  bankCode: string,
  cache?: BankCodeCache,
): Promise<BankCodeCheck> {
  if (currency === 'INR') {
    return IFSC_PATTERN.test(bankCode)
      ? { ok: true }
      : {
          ok: false,
          reason: `not an IFSC code (expected 4 letters, 0, 6 letters or digits), got ${JSON.stringify(bankCode.slice(0, 40))}`,
        };
  }
  if (currency !== 'IDR' && currency !== 'NGN') return { ok: false, reason: `no bank code check for currency ${JSON.stringify(currency)}` };
  let list = cache?.get(currency);
  if (!list) {
    const pending = client.bankCodes(currency);
    list = pending;
    cache?.set(currency, pending);
    pending.catch(() => {
      if (cache?.get(currency) === pending) cache.delete(currency);
    });
  }
  const entry = (await list).find((e) => e.bankCode === bankCode);
  return entry
    ? { ok: true, bankName: entry.bankName }
    : { ok: false, reason: `bank code ${JSON.stringify(bankCode.slice(0, 40))} is not in the provider's ${currency} list` };
}
