import { loadConfig, readEnv } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { checkAlerting, checkAlertWebhook, checkDatabase, checkProviders, checkReportDir, checkSmtp, type CheckResult } from './checks.ts';
import { checkQueue } from './check-queue.ts';
import { checkMerchantRefScope } from './check-merchant-refs.ts';

export interface DoctorReport {
  ok: boolean;
  checks: CheckResult[];
}

/** Every check, configuration first (nothing else is checked without a valid one). ok: nothing failed. */
export async function runDoctor(env: Record<string, string | undefined> = readEnv()): Promise<DoctorReport> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const checks: CheckResult[] = [
      { name: 'configuration', status: 'failed', detail: err.problems.join('; '), fix: 'fix the variables named (see .env.example)' },
    ];
    return { ok: false, checks };
  }
  const checks: CheckResult[] = [{ name: 'configuration', status: 'ok', detail: 'valid' }];
  // One at a time: the output reads in order, and a slow network is easier to tell apart.
  for (const check of [
    checkDatabase,
    checkMerchantRefScope,
    checkProviders,
    checkSmtp,
    checkAlertWebhook,
    checkAlerting,
    checkReportDir,
    checkQueue,
  ])
    checks.push(...[await check(config)].flat());
  return { ok: checks.every((c) => c.status !== 'failed'), checks };
}

export function renderDoctor(report: DoctorReport): string {
  const mark = { ok: '[ok]  ', failed: '[FAIL]', skipped: '[skip]' } as const;
  const lines = report.checks.flatMap((c) => [`${mark[c.status]} ${c.name}: ${c.detail}`, ...(c.fix ? [`       fix: ${c.fix}`] : [])]);
  lines.push(report.ok ? 'payrecon doctor: everything needed is in place' : 'payrecon doctor: problems found (see fix above)');
  return `${lines.join('\n')}\n`;
}
