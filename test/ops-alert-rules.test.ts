// The example alert rules name only metric families payrecon exposes (a renamed family would
// silently never fire). No YAML parser is a dependency of this project, so the file's structure is
// checked line by line instead.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PayreconMetrics } from '../src/metrics/metrics.ts';

const RULES = fs.readFileSync(new URL('../examples/prometheus/payrecon-alerts.yml', import.meta.url), 'utf8');

describe('examples/prometheus/payrecon-alerts.yml', () => {
  it('uses only payrecon metric families that exist', async () => {
    const exposed = new Set((await new PayreconMetrics().registry.getMetricsAsJSON()).map((m) => m.name));
    // Issue 35's alerting families are registered by PayreconMetrics itself now: no name is added by hand.
    // payrecon_job is a label, not a family.
    const used = new Set(RULES.match(/\bpayrecon_[a-z_]+/g)?.filter((name) => name !== 'payrecon_job'));
    expect(used.size).toBeGreaterThanOrEqual(5);
    for (const name of used) expect(exposed, name).toContain(name);
  });

  it('has the alerts of issues 29 and 40, each with an expression', () => {
    const alerts = [...RULES.matchAll(/^ {6}- alert: (\w+)$/gm)].map((m) => m[1]);
    expect(alerts).toEqual(
      expect.arrayContaining([
        'PayreconJobNotSucceeded',
        'PayreconBalanceDrift',
        'PayreconReportEmailsPending',
        'PayreconOpenCasesHigh',
        'PayreconProviderErrors',
        'PayreconProviderDown',
        'PayreconDatabaseUnreachable',
        'PayreconDatabaseFlapping',
        'PayreconNotReady',
        'PayreconAlertingFailing',
      ]),
    );
    expect(RULES.match(/^ {8}expr: /gm)?.length).toBe(alerts.length);
    expect(RULES).not.toMatch(/\t/);
  });
});
