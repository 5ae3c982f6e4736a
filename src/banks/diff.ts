import type { BankEntry } from '../provider/types.ts';

/** What a stored code looks like to the diff. */
export interface KnownBank {
  bankCode: string;
  bankName: string;
  active: boolean;
}

export interface BankRename {
  bankCode: string;
  from: string;
  to: string;
}

export interface BankListDiff {
  /** Codes never stored before. */
  added: BankEntry[];
  /** Codes stored inactive that the provider lists again (with the name it lists now). */
  reactivated: BankEntry[];
  /** Same code, other name (whether it was active or not). */
  renamed: BankRename[];
  /** Active codes the provider no longer lists. */
  removed: BankEntry[];
  unchanged: number;
  /** The provider's list with each code once (the last occurrence wins), in the provider's order. */
  entries: BankEntry[];
  /** Codes the provider listed more than once. */
  duplicates: string[];
}

/** Pure comparison of the stored list of one currency with the provider's current list. */
export function diffBankLists(stored: readonly KnownBank[], fetched: readonly BankEntry[]): BankListDiff {
  const byCode = new Map<string, BankEntry>();
  const duplicates = new Set<string>();
  for (const e of fetched) {
    if (byCode.has(e.bankCode)) duplicates.add(e.bankCode);
    byCode.set(e.bankCode, e);
  }
  const known = new Map(stored.map((s) => [s.bankCode, s]));
  const out: BankListDiff = {
    added: [],
    reactivated: [],
    renamed: [],
    removed: [],
    unchanged: 0,
    entries: [...byCode.values()],
    duplicates: [...duplicates].sort(),
  };
  for (const e of out.entries) {
    const k = known.get(e.bankCode);
    if (!k) {
      out.added.push(e);
      continue;
    }
    if (k.bankName !== e.bankName) out.renamed.push({ bankCode: e.bankCode, from: k.bankName, to: e.bankName });
    if (!k.active) out.reactivated.push(e);
    if (k.active && k.bankName === e.bankName) out.unchanged++;
  }
  for (const s of stored) {
    if (s.active && !byCode.has(s.bankCode)) out.removed.push({ bankCode: s.bankCode, bankName: s.bankName });
  }
  return out;
}
