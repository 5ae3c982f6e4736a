// The console job: the web console and its health/metrics port, until SIGINT or SIGTERM.
import { printOut } from '../log/terminal.ts';
import { withJob } from '../runtime/with-job.ts';
import { untilAborted } from '../runtime/until-aborted.ts';
import { dayJobs } from './day-jobs.ts';
import { PayreconMetrics } from '../metrics/metrics.ts';
import { serveOps } from '../metrics/serve-ops.ts';

export async function consoleJob(opts: { port?: number }): Promise<void> {
  // A rerun's two steps run in this process with its pool: reconcile --date, then report --date (not e-mailed).
  const metrics = new PayreconMetrics();
  await withJob('console', { stoppable: true, metrics }, async ({ config, db, logger, signal }) => {
    // Loaded here: the web server (fastify and its plugins) is about 20 MB no other command needs.
    const { serveConsole } = await import('../console/serve.ts');
    const running = await serveConsole({ db, config, logger, port: opts.port, ...dayJobs({ config, logger, db, metrics }) });
    printOut(`payrecon console listening on ${running.url}\n`);
    // Its own port (CONSOLE_METRICS_PORT), never the console's: no session guards /metrics.
    const ops = await serveOps({ db, metrics, logger, host: config.METRICS_HOST, port: config.CONSOLE_METRICS_PORT }).catch(
      async (err: unknown) => {
        await running.close();
        throw err;
      },
    );
    if (ops) printOut(`payrecon console health and metrics on ${ops.url}/metrics\n`);
    await untilAborted(signal);
    await running.close();
    await ops?.close();
  });
}
