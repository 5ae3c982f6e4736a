import { Decimal } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';

/**
 * Matching movements to bank-statement lines (issue 38). Choices made for finance:
 * - Only bank movements take part: top-ups and withdrawals with no USDT leg. A withdrawal to the bank
 *   is a credit on the statement, a top-up from the bank a debit.
 * - By reference and amount: the line must carry the movement's reference (its end-to-end id or
 *   remittance text, any case), in the same currency, the right way, and within the currency's stated
 *   tolerance for bank charges. The difference (line − movement) is kept and shown, never hidden.
 * - One-to-one: a line satisfies one movement, a movement one line. Among several candidates the
 *   smallest difference wins, then the earliest line.
 * - Many-to-one only when a line names several movements and their sum equals its amount exactly
 *   (no tolerance: a batch that does not add up is for a person to look at). Tried before one-to-one,
 *   so a batch line is not taken by one of its movements alone.
 * - No match on amount alone: a suggestion without a reference is not a match.
 */
export interface BankMovement {
  id: string;
  reference: string;
  currency: string;
  direction: 'in' | 'out';
  amount: Amount;
}

export interface BankLine {
  id: string;
  currency: string;
  direction: 'credit' | 'debit';
  amount: Amount;
  refs: readonly string[];
  bookedOn: string;
}

export interface BankMatch {
  lineId: string;
  movementIds: string[];
  kind: 'one_to_one' | 'many_to_one';
  /** line amount − the movements' sum. */
  difference: Amount;
}

export interface BankMatchResult {
  matches: BankMatch[];
  unmatchedLines: string[];
  unmatchedMovements: string[];
}

const expectedSide = (m: BankMovement): BankLine['direction'] => (m.direction === 'out' ? 'credit' : 'debit');

/** Whether the line carries the reference: equal to one of its refs, or a whole word of one (any case). */
export function carriesReference(line: Pick<BankLine, 'refs'>, reference: string): boolean {
  const ref = reference.toLowerCase();
  if (ref === '') return false;
  return line.refs.some((r) => {
    const text = r.toLowerCase();
    let at = text.indexOf(ref);
    while (at !== -1) {
      const before = at === 0 ? '' : text[at - 1];
      const after = text[at + ref.length] ?? '';
      if (!/[a-z0-9]/.test(before) && !/[a-z0-9]/.test(after)) return true;
      at = text.indexOf(ref, at + 1);
    }
    return false;
  });
}

export function matchBankLines(
  movements: readonly BankMovement[],
  lines: readonly BankLine[],
  tolerance: (currency: string) => Amount,
): BankMatchResult {
  const usedLines = new Set<string>();
  const usedMovements = new Set<string>();
  const matches: BankMatch[] = [];
  const sortedLines = [...lines].sort((a, b) =>
    a.bookedOn < b.bookedOn ? -1 : a.bookedOn > b.bookedOn ? 1 : Number(BigInt(a.id) - BigInt(b.id)),
  );
  const fits = (m: BankMovement, l: BankLine) =>
    l.currency === m.currency && l.direction === expectedSide(m) && carriesReference(l, m.reference);

  // Many-to-one first, exact sums only.
  for (const l of sortedLines) {
    const named = movements.filter((m) => !usedMovements.has(m.id) && fits(m, l));
    if (named.length < 2) continue;
    const sum = named.reduce((acc, m) => acc.plus(m.amount), new Decimal(0));
    if (!sum.equals(l.amount)) continue;
    usedLines.add(l.id);
    for (const m of named) usedMovements.add(m.id);
    matches.push({ lineId: l.id, movementIds: named.map((m) => m.id), kind: 'many_to_one', difference: '0' });
  }

  // One-to-one, within the bank-charge tolerance.
  for (const m of movements) {
    if (usedMovements.has(m.id)) continue;
    const tol = new Decimal(tolerance(m.currency));
    let best: { line: BankLine; diff: Decimal } | null = null;
    for (const l of sortedLines) {
      if (usedLines.has(l.id) || !fits(m, l)) continue;
      const diff = new Decimal(l.amount).minus(m.amount);
      if (diff.abs().greaterThan(tol)) continue;
      if (!best || diff.abs().lessThan(best.diff.abs())) best = { line: l, diff };
    }
    if (!best) continue;
    usedLines.add(best.line.id);
    usedMovements.add(m.id);
    matches.push({ lineId: best.line.id, movementIds: [m.id], kind: 'one_to_one', difference: best.diff.toFixed() });
  }

  return {
    matches,
    unmatchedLines: sortedLines.filter((l) => !usedLines.has(l.id)).map((l) => l.id),
    unmatchedMovements: movements.filter((m) => !usedMovements.has(m.id)).map((m) => m.id),
  };
}
