// The shipped alert rules, proven by `promtool test rules` (Debian's prometheus package): every rule
// fires on its fault and is silent when healthy, in examples/prometheus/tests/*.test.yml. Skipped,
// with the reason and counted at the run's end, where promtool is absent; under CI=true that fails (.ci/run installs it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PayreconMetrics } from '../src/metrics/metrics.ts';
import { skipping } from './helpers/skips.ts';

const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';
const DIR = new URL('../examples/prometheus/', import.meta.url).pathname;
const TESTS = path.join(DIR, 'tests');
const RULES = fs.readFileSync(path.join(DIR, 'payrecon-alerts.yml'), 'utf8');
const testFiles = fs.readdirSync(TESTS).filter((f) => f.endsWith('.test.yml'));

const hasPromtool = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' }).status === 0;

describe.skipIf(
  !hasPromtool && skipping(`no ${PROMTOOL} on PATH; apt-get install prometheus, or set PROMTOOL_PATH`, 'promtool test rules'),
)('promtool test rules', () => {
  it('checks the rules file', () => {
    const run = spawnSync(PROMTOOL, ['check', 'rules', path.join(DIR, 'payrecon-alerts.yml')], { encoding: 'utf8' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it.each(testFiles)('%s', (file) => {
    const run = spawnSync(PROMTOOL, ['test', 'rules', file], { cwd: TESTS, encoding: 'utf8' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});

describe('the rules and their tests', () => {
  const alerts = [...RULES.matchAll(/^ {6}- alert: (\w+)$/gm)].map((m) => m[1]);
  const tests = testFiles.map((f) => fs.readFileSync(path.join(TESTS, f), 'utf8')).join('\n');

  it('has a firing case for every rule', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(12);
    // A firing case names the alert, then lists exp_alerts with labels.
    const firing = new Set([...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels/g)].map((m) => m[1]));
    expect([...firing].sort()).toEqual([...alerts].sort());
  });

  it('has a silent case for every rule', () => {
    // A silent case names the alert and expects nothing (no exp_alerts line after it).
    const silent = new Set([...tests.matchAll(/alertname: (\w+)\n(?!\s+exp_alerts)/g)].map((m) => m[1]));
    expect([...silent].sort()).toEqual([...alerts].sort());
  });

  it('exposes no label a default scrape renames (job, instance)', async () => {
    const families = await new PayreconMetrics().registry.getMetricsAsJSON();
    for (const family of families) {
      for (const value of family.values as { labels: Record<string, unknown> }[]) {
        for (const label of Object.keys(value.labels)) expect(['job', 'instance'], `${family.name}{${label}}`).not.toContain(label);
      }
    }
    // The rules select payrecon's own families by their own labels only.
    expect(RULES).not.toMatch(/payrecon_[a-z_]+\{[^}]*\b(job|instance)=/);
  });
});
