/** The outcome label of payrecon_job_runs_total: four values, whatever each job calls its statuses. */
export const JOB_OUTCOMES = ['success', 'failure', 'skipped', 'interrupted'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

/** A job's own status and exit code as an outcome: only a completed run with exit 0 is a success. */
export function jobOutcome(status: string, exitCode: number): JobOutcome {
  if (status === 'skipped' || status === 'busy' || status === 'already_done') return 'skipped';
  if (status === 'interrupted') return 'interrupted';
  return status === 'completed' && exitCode === 0 ? 'success' : 'failure';
}
