import type { Reporter, TestModule } from 'vitest/node';
import { RUN_DIR_ENV } from './global-setup.ts';
import { PG_TEMPLATE_ENV } from './helpers/db-template.ts';
import { recordedSkips } from './helpers/skips.ts';

/**
 * At the end of a run: how many tests were skipped and why (what was missing, what went unchecked),
 * so a green run on a machine without Postgres or Chromium does not pass for a full one. The reasons
 * are those the helpers recorded (helpers/skips.ts); under CI=true they fail the run instead.
 */
export default class SkipSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    for (const m of modules) for (const t of m.children.allTests()) if (t.result().state === 'skipped') skipped++;
    const dir = process.env[RUN_DIR_ENV];
    const byWhy = dir ? recordedSkips(dir) : new Map<string, Map<string, number>>();
    const ranDatabase = modules.some((m) => m.project.name !== 'unit');
    const lines: string[] = [];
    for (const [why, reasons] of byWhy) {
      const sites = [...reasons.values()].reduce((a, b) => a + b, 0);
      lines.push(`  ${why}: skipped at ${sites} place${sites === 1 ? '' : 's'} (a test or a group each)`);
      for (const [reason, n] of reasons) lines.push(`    - ${reason}${n > 1 ? ` (${n})` : ''}`);
    }
    if (ranDatabase && !process.env[PG_TEMPLATE_ENV])
      lines.push('  no Postgres server: the tests that run on each engine ran on PGlite only');
    if (skipped === 0 && lines.length === 0) return;
    console.log(`\nSkipped: ${skipped} test${skipped === 1 ? '' : 's'} did not run here${lines.length ? ':' : '.'}`);
    for (const line of lines) console.log(line);
    console.log('  (CI=true fails instead of skipping: .ci/run)');
  }
}
