import type { BankEntry } from '../provider/types.ts';

export type BankCurrency = 'IDR' | 'NGN';
export const BANK_CURRENCIES: readonly BankCurrency[] = ['IDR', 'NGN'];

/** Indonesian clearing codes (three digits) plus e-wallets under aggregator-style five-digit codes. */
const IDR_BANKS: readonly BankEntry[] = [
  ['002', 'Bank Rakyat Indonesia (BRI)'],
  ['008', 'Bank Mandiri'],
  ['009', 'Bank Negara Indonesia (BNI)'],
  ['011', 'Bank Danamon'],
  ['013', 'Bank Permata'],
  ['014', 'Bank Central Asia (BCA)'],
  ['016', 'Maybank Indonesia'],
  ['019', 'Bank Panin'],
  ['022', 'CIMB Niaga'],
  ['023', 'Bank UOB Indonesia'],
  ['028', 'Bank OCBC NISP'],
  ['031', 'Citibank'],
  ['037', 'Bank Artha Graha'],
  ['046', 'Bank DBS Indonesia'],
  ['087', 'HSBC Indonesia'],
  ['097', 'Bank Mayapada'],
  ['110', 'Bank BJB'],
  ['111', 'Bank DKI'],
  ['113', 'Bank Jateng'],
  ['114', 'Bank Jatim'],
  ['117', 'Bank Sumut'],
  ['118', 'Bank Nagari'],
  ['129', 'Bank BPD Bali'],
  ['147', 'Bank Muamalat'],
  ['153', 'Bank Sinarmas'],
  ['200', 'Bank Tabungan Negara (BTN)'],
  ['213', 'Bank BTPN'],
  ['426', 'Bank Mega'],
  ['441', 'KB Bukopin'],
  ['451', 'Bank Syariah Indonesia (BSI)'],
  ['490', 'Bank Neo Commerce'],
  ['535', 'SeaBank'],
  ['536', 'BCA Syariah'],
  ['542', 'Bank Jago'],
  ['567', 'Allo Bank'],
  ['950', 'Commonwealth Bank'],
  ['10001', 'OVO'],
  ['10002', 'DANA'],
  ['10003', 'GoPay'],
  ['10004', 'ShopeePay'],
  ['10005', 'LinkAja'],
].map(([bankCode, bankName]) => ({ bankCode, bankName }));

/** Nigerian CBN bank codes, NIP-style microfinance and mobile-money codes (5 to 6 digits), and a few legacy two-digit codes. */
const NGN_BANKS: readonly BankEntry[] = [
  ['044', 'Access Bank'],
  ['023', 'Citibank Nigeria'],
  ['050', 'Ecobank Nigeria'],
  ['070', 'Fidelity Bank'],
  ['011', 'First Bank of Nigeria'],
  ['214', 'First City Monument Bank'],
  ['058', 'Guaranty Trust Bank'],
  ['030', 'Heritage Bank'],
  ['082', 'Keystone Bank'],
  ['076', 'Polaris Bank'],
  ['101', 'Providus Bank'],
  ['221', 'Stanbic IBTC Bank'],
  ['068', 'Standard Chartered Bank'],
  ['232', 'Sterling Bank'],
  ['100', 'SunTrust Bank'],
  ['102', 'Titan Trust Bank'],
  ['032', 'Union Bank of Nigeria'],
  ['033', 'United Bank for Africa'],
  ['215', 'Unity Bank'],
  ['035', 'Wema Bank'],
  ['057', 'Zenith Bank'],
  ['301', 'Jaiz Bank'],
  ['302', 'TAJ Bank'],
  ['303', 'Lotus Bank'],
  ['103', 'Globus Bank'],
  ['104', 'Parallex Bank'],
  ['105', 'PremiumTrust Bank'],
  ['566', 'VFD Microfinance Bank'],
  ['565', 'Carbon'],
  ['50211', 'Kuda Microfinance Bank'],
  ['50515', 'Moniepoint Microfinance Bank'],
  ['51318', 'FairMoney Microfinance Bank'],
  ['50304', 'Mint Microfinance Bank'],
  ['51310', 'Sparkle Microfinance Bank'],
  ['090267', 'Kuda (NIP)'],
  ['090405', 'Moniepoint (NIP)'],
  ['100002', 'Paga'],
  ['100004', 'OPay Digital Services'],
  ['999991', 'PalmPay'],
  ['999992', 'OPay'],
  ['120001', '9mobile 9Payment Service Bank'],
  ['120002', 'HopePSB'],
  ['120003', 'MoMo Payment Service Bank'],
  ['120004', 'SmartCash Payment Service Bank'],
  ['40', 'Coronation Merchant Bank'],
  ['60', 'FSDH Merchant Bank'],
].map(([bankCode, bankName]) => ({ bankCode, bankName }));

export const DEFAULT_BANKS: Readonly<Record<BankCurrency, readonly BankEntry[]>> = Object.freeze({ IDR: IDR_BANKS, NGN: NGN_BANKS });

export const isBankCurrency = (c: unknown): c is BankCurrency => c === 'IDR' || c === 'NGN';

/** IFSC: four letters, a zero, six alphanumerics; checked loosely (case-insensitive, fifth char any alphanumeric). */
export const isIfscShaped = (code: string): boolean => /^[A-Za-z]{4}[0-9A-Za-z]{7}$/.test(code);

/** The provider's current bank lists; the control interface edits them so clients see list changes. */
export class BankDirectory {
  private lists = new Map<BankCurrency, Map<string, string>>();

  constructor() {
    this.reset();
  }

  reset(): void {
    for (const c of BANK_CURRENCIES) this.lists.set(c, new Map(DEFAULT_BANKS[c].map((b) => [b.bankCode, b.bankName])));
  }

  list(currency: BankCurrency): BankEntry[] {
    return [...this.lists.get(currency)!].map(([bankCode, bankName]) => ({ bankCode, bankName }));
  }

  has(currency: BankCurrency, code: string): boolean {
    return this.lists.get(currency)!.has(code);
  }

  /** Adds an entry, or renames it when the code exists. */
  set(currency: BankCurrency, bankCode: string, bankName: string): void {
    this.lists.get(currency)!.set(bankCode, bankName);
  }

  remove(currency: BankCurrency, bankCode: string): boolean {
    return this.lists.get(currency)!.delete(bankCode);
  }
}
