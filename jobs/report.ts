// Entry of the report job for cron or a container (`node dist/jobs/report.js`): yesterday's
// report, e-mailed when SMTP_URL and REPORT_EMAIL_TO are set. Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { loadConfig } from '../src/config/config.ts';
import { reportJob } from '../src/services/report.ts';

await runJobEntry(async () => {
  const config = loadConfig();
  const email = Boolean(config.SMTP_URL && config.REPORT_EMAIL_TO?.length);
  return (await reportJob({ email }, { config })).exitCode;
});
