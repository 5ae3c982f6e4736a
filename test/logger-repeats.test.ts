// Issue 40: identical warnings are written once, then counted once per window; Node's own warnings
// go through the logger (JSON under LOG_FORMAT=json) once a process routes its stray output.
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/log/logger.ts';

const json = (out: PassThrough) =>
  String(out.read() ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('repeated warnings', () => {
  afterEach(() => void vi.useRealTimers());

  it('the first in full, then one count per window while they last, then in full again', () => {
    vi.useFakeTimers();
    const out = new PassThrough();
    const log = createLogger({ format: 'json', level: 'info', destination: out, repeatWindowMs: 60_000 }).child({ job: 'reconcile' });
    for (let i = 0; i < 5; i++) log.warn({ retry: i }, 'provider call failed; retrying');
    log.warn('another warning');
    for (let i = 0; i < 3; i++) log.info('progress');
    expect(json(out).map((l) => [l.msg, l.retry])).toEqual([
      ['provider call failed; retrying', 0],
      ['another warning', undefined],
      ['progress', undefined],
      ['progress', undefined],
      ['progress', undefined],
    ]);
    vi.advanceTimersByTime(60_000);
    expect(json(out)).toEqual([
      expect.objectContaining({
        level: 40,
        job: 'reconcile',
        repeated: 4,
        windowSeconds: 60,
        msg: 'provider call failed; retrying (4 more within 60 s)',
      }),
    ]);
    log.warn({ retry: 9 }, 'provider call failed; retrying');
    vi.advanceTimersByTime(60_000);
    expect(json(out).map((l) => l.repeated)).toEqual([1]);
    // A quiet window ends the repeat: the next one is news again.
    vi.advanceTimersByTime(60_000);
    expect(json(out)).toEqual([]);
    log.warn({ retry: 10 }, 'provider call failed; retrying');
    expect(json(out).map((l) => [l.msg, l.retry])).toEqual([['provider call failed; retrying', 10]]);
  });

  it('repeatWindowMs 0 writes every line', () => {
    const out = new PassThrough();
    const log = createLogger({ format: 'json', destination: out, repeatWindowMs: 0 });
    for (let i = 0; i < 3; i++) log.warn('same');
    expect(json(out)).toHaveLength(3);
  });
});

describe('stray output of a process', () => {
  it("Node's warnings (the listener-limit one included) become JSON log lines", () => {
    const code = `
      const { createLogger } = await import(${JSON.stringify(new URL('../src/log/logger.ts', import.meta.url).pathname)});
      const { routeStrayOutput, strayWarning } = await import(${JSON.stringify(new URL('../src/log/stray-output.ts', import.meta.url).pathname)});
      routeStrayOutput(createLogger({ format: 'json' }));
      const t = new EventTarget();
      for (let i = 0; i < 11; i++) t.addEventListener('abort', () => {});
      process.emitWarning('something odd', 'DeprecationWarning', 'DEP0999');
      strayWarning('knex', 'Connection Error: Connection ended unexpectedly');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // Node emits its warnings on the next tick: after the knex line.
    expect(lines.map((l) => [l.source, l.warning ?? null, l.level])).toEqual([
      ['knex', null, 40],
      ['node', 'MaxListenersExceededWarning', 40],
      ['node', 'DeprecationWarning', 40],
    ]);
  });
});
