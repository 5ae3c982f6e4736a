// The image's operational settings, read from the Dockerfile (no Docker daemon is needed, or present
// on the machine this was written on): the ops port served and exposed, a HEALTHCHECK on /readyz that
// works (run here against a real ops server), and a shutdown that fits `docker stop`'s grace.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PayreconMetrics } from '../src/metrics/metrics.ts';
import { startOpsServer } from '../src/metrics/ops-server.ts';

/** `docker stop`'s default wait between SIGTERM and SIGKILL. */
const DOCKER_STOP_GRACE_MS = 10_000;

/** Instructions of the final stage, continuation lines joined, comments dropped. */
function finalStage(text: string): { op: string; args: string }[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const all = lines
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
  const from = all.map((i) => i.op).lastIndexOf('FROM');
  return all.slice(from);
}

/** ENV a=b c=d ... pairs (this Dockerfile writes no quoted values). */
function envOf(stage: { op: string; args: string }[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.filter((s) => s.op === 'ENV')) {
    for (const pair of i.args.split(/\s+/)) {
      const [k, v] = pair.split('=');
      env[k] = v;
    }
  }
  return env;
}

const stage = finalStage(fs.readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8'));
const env = envOf(stage);
const docs = fs.readFileSync(new URL('../docs/operations/docker.md', import.meta.url), 'utf8');

describe('Dockerfile', () => {
  it('serves the ops port by default on the container interface, and exposes it', () => {
    expect(env.SCHEDULE_HTTP_PORT).toMatch(/^\d+$/);
    expect(env.SCHEDULE_HTTP_HOST).toBe('0.0.0.0');
    expect(stage.filter((i) => i.op === 'EXPOSE').map((i) => i.args)).toEqual([env.SCHEDULE_HTTP_PORT]);
  });

  it('shuts down within docker stop’s grace, leaving time to exit', () => {
    expect(Number(env.SCHEDULE_SHUTDOWN_TIMEOUT_MS)).toBeLessThanOrEqual(DOCKER_STOP_GRACE_MS - 2_000);
    expect(stage.find((i) => i.op === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it('has a HEALTHCHECK whose command exits 0 on a ready /readyz and 1 on a 503 or no answer', async () => {
    const check = stage.find((i) => i.op === 'HEALTHCHECK');
    expect(check?.args).toMatch(/--start-period=\d+s/);
    const argv = JSON.parse(check!.args.slice(check!.args.indexOf('CMD') + 3)) as string[];
    expect(argv[0]).toBe('node');
    let reason: string | null = null;
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      metrics: new PayreconMetrics({ defaultMetrics: false }),
      ready: async () => reason,
    });
    // Asynchronously: the server answering lives in this process's event loop.
    const run = (port: number) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, argv.slice(1), {
          env: { ...process.env, SCHEDULE_HTTP_PORT: String(port) },
          stdio: 'ignore',
        });
        child.on('exit', (code) => resolve(code));
      });
    try {
      expect(await run(server.port)).toBe(0);
      reason = 'database unreachable';
      expect(await run(server.port)).toBe(1);
    } finally {
      await server.close();
    }
    // Nothing listening: refused, not hanging.
    expect(await run(server.port)).toBe(1);
  });

  it('docs/operations/docker.md says the stop timeout, a docker run and a compose file that reaches a database', () => {
    expect(docs).toContain(`SCHEDULE_SHUTDOWN_TIMEOUT_MS\` | ${env.SCHEDULE_SHUTDOWN_TIMEOUT_MS}`);
    expect(docs).toMatch(/--stop-timeout \d+/);
    expect(docs).toMatch(/stop_grace_period: \d+s/);
    expect(docs).toMatch(/^docker run .*\\$/m);
    expect(docs).toMatch(/DATABASE_URL: postgres:\/\/\S+@db:5432\//);
    expect(docs).toContain('host.docker.internal');
  });
});
