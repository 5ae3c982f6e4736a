/**
 * The benches check every order they seed (some only seconds or minutes old) and verify that each was
 * checked once: the production first-check delays (RECON_FIRST_CHECK_*) would leave the youngest out.
 */
export const CHECK_AT_ONCE = { RECON_FIRST_CHECK_PAYMENT: '0', RECON_FIRST_CHECK_PAYOUT: '0' } as const;
