/**
 * Tests that skip where something is missing (a Postgres server, Chromium) say so, and the run says
 * at its end how many were skipped and why (test/skip-summary.ts). Under CI (CI=true) nothing may be
 * missing: the run fails instead of going green having checked less.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RUN_DIR_ENV } from '../global-setup.ts';

const LEDGER = 'skips.jsonl';

/** True when the environment says this is CI: every test must run. */
export function insisting(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/** The error a CI run stops with when something a test needs is missing. */
export function missingInCi(why: string): Error {
  return new Error(`CI=true and ${why}: CI runs every test and none may skip; provide it, or run without CI=true.`);
}

const warned = new Set<string>();

/**
 * Records one skipped test (or group) with why it skipped and what it checks: printed once per reason
 * as it happens, counted in the run's summary. Throws under CI.
 */
export function skipping(why: string, reason: string): true {
  if (insisting()) throw missingInCi(`${why} (${reason})`);
  if (!warned.has(reason)) {
    warned.add(reason);
    console.warn(`skipped (${why}): ${reason}`);
  }
  const dir = process.env[RUN_DIR_ENV];
  if (dir) fs.appendFileSync(path.join(dir, LEDGER), `${JSON.stringify({ why, reason })}\n`);
  return true;
}

/** The skips recorded during the run, grouped by why: [why, reasons with how many sites each]. */
export function recordedSkips(dir: string): Map<string, Map<string, number>> {
  const byWhy = new Map<string, Map<string, number>>();
  const file = path.join(dir, LEDGER);
  if (!fs.existsSync(file)) return byWhy;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { why, reason } = JSON.parse(line) as { why: string; reason: string };
    const reasons = byWhy.get(why) ?? new Map<string, number>();
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    byWhy.set(why, reasons);
  }
  return byWhy;
}
