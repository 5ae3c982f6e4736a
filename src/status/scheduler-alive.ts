import { CronSpec } from '../schedule/cron.ts';

/** Slack for a tick that started a little late, or a run still being recorded. */
const GRACE_MS = 5 * 60_000;

/**
 * Whether a `payrecon schedule` process appears to be running: some job it schedules started
 * (or, still running, made progress) at or after the occurrence before its latest one. One missed
 * tick is allowed for; two are not. The scheduler keeps no heartbeat of its own, so its job runs
 * are the evidence (a manual run of the same job counts too). Pure: `now` is given.
 */
export function schedulerSeemsAlive(
  jobs: ReadonlyArray<{ schedule: string | null; lastRun: { startedAt: Date; heartbeatAt: Date | null } | null }>,
  zone: string,
  now: Date,
): boolean {
  return jobs.some((j) => {
    if (!j.schedule || j.schedule === 'off' || !j.lastRun) return false;
    let spec: CronSpec;
    try {
      spec = CronSpec.parse(j.schedule, zone);
    } catch {
      return false;
    }
    const latest = spec.previous(now);
    const before = latest ? spec.previous(new Date(latest.getTime() - 60_000)) : null;
    if (!before) return false;
    const seen = Math.max(j.lastRun.startedAt.getTime(), j.lastRun.heartbeatAt?.getTime() ?? 0);
    return seen >= before.getTime() - GRACE_MS;
  });
}
