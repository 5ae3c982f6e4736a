/** The reconcile bench's creep check (bench/lib/cpu-ratio.ts, `npm run bench:check`) and its stage attribution of a profile. */
import { describe, expect, it } from 'vitest';
import { checkCreep, cpuRatio, ratioOf } from '../bench/lib/cpu-ratio.ts';
import type { BenchRecord } from '../bench/lib/record.ts';
import { stagesOf, type CpuProfile } from '../bench/lib/profile-stages.ts';

const MACHINE = { cpu: 'AMD EPYC', cores: 2, memory_gib: 23.5, node: 'v20.20.2', database: 'Postgres 15.20' };

function run(
  at: string,
  cpu: { job: number; client: number; clientAfter?: number },
  extra: { orders?: number; latency_ms?: number; machine?: Partial<typeof MACHINE>; notes?: string[]; written?: boolean } = {},
): BenchRecord {
  return {
    at,
    command: 'npm run bench',
    machine: { ...MACHINE, ...extra.machine },
    load: { before_job: [1, 1, 1] },
    figures: {
      orders: extra.orders ?? 100_000,
      latency_ms: extra.latency_ms ?? 0,
      concurrency: 64,
      cli: 'dist',
      all_results_written: extra.written ?? true,
      cpu_us_per_order: {
        job: cpu.job,
        fetch_only_client_per_request: cpu.client,
        ...(cpu.clientAfter ? { fetch_only_client_per_request_after: cpu.clientAfter } : {}),
      },
    },
    ...(extra.notes ? { notes: extra.notes } : {}),
  };
}

describe('cpuRatio and ratioOf', () => {
  it.each([
    { name: 'client before and after: their mean', job: 150, before: 70, after: 80, ratio: 2 },
    { name: 'client before only (runs recorded before the ratio)', job: 130, before: 76, after: undefined, ratio: 1.711 },
  ])('$name', ({ job, before, after, ratio }) => {
    expect(cpuRatio(job, before, after)).toBe(ratio);
    expect(ratioOf(run('2026-11-27T10:00:00Z', { job, client: before, clientAfter: after }))).toBe(ratio);
  });

  it('has no ratio for a run that did not write every result', () => {
    expect(ratioOf(run('2026-11-27T10:00:00Z', { job: 100, client: 80 }, { written: false }))).toBeNull();
  });
});

describe('checkCreep', () => {
  it.each([
    {
      name: 'grown: against the lowest earlier ratio of the same machine and case',
      records: [run('t1', { job: 140, client: 70 }), run('t2', { job: 130, client: 76 }), run('t3', { job: 207, client: 82 })],
      best: 't2',
      growth: 0.475,
    },
    {
      name: 'another CPU, another size, another latency, a profiled run: none is the reference',
      records: [
        run('t1', { job: 100, client: 80 }, { machine: { cpu: 'Intel Xeon' } }),
        run('t2', { job: 100, client: 80 }, { orders: 30_000 }),
        run('t3', { job: 100, client: 80 }, { latency_ms: 50 }),
        run('t4', { job: 100, client: 80 }, { notes: ['measured processes ran with BENCH_NODE_ARGS=--cpu-prof'] }),
        run('t5', { job: 150, client: 75 }),
      ],
      best: null,
      growth: null,
    },
    {
      name: 'better than the best: negative growth',
      records: [run('t1', { job: 150, client: 75 }), run('t2', { job: 120, client: 80 })],
      best: 't1',
      growth: -0.25,
    },
  ])('$name', ({ records, best, growth }) => {
    const check = checkCreep(records);
    expect(check.best?.record.at ?? null).toBe(best);
    expect(check.growth).toBe(growth);
  });

  it('refuses a latest run without the figures, naming why', () => {
    expect(() => checkCreep([run('t1', { job: 100, client: 80 }), run('t2', { job: 100, client: 80 }, { written: false })])).toThrow(
      /did not write every result/,
    );
  });
});

describe('stagesOf', () => {
  // root -> main -> reconcile's commitPage -> knex (a library under payrecon: the payrecon frame decides);
  // root -> socket callback -> pg-protocol (no payrecon frame: the library decides); pino under compare: logging.
  const frame = (functionName: string, url: string) => ({ functionName, url });
  const profile: CpuProfile = {
    startTime: 0,
    endTime: 7000,
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 5, 7, 8, 9] },
      { id: 2, callFrame: frame('commitPage', 'file:///x/dist/src/reconcile/execute-run.js'), children: [3] },
      { id: 3, callFrame: frame('insertItems', 'file:///x/dist/src/db/items.js'), children: [4] },
      { id: 4, callFrame: frame('toSQL', 'file:///x/node_modules/knex/lib/query.js') },
      { id: 5, callFrame: frame('onData', 'node:net'), children: [6] },
      { id: 6, callFrame: frame('parse', 'file:///x/node_modules/pg-protocol/dist/parser.js') },
      { id: 7, callFrame: frame('compareOrder', 'file:///x/dist/src/recon/compare.js'), children: [10] },
      { id: 8, callFrame: frame('(idle)', '') },
      { id: 9, callFrame: frame('(garbage collector)', '') },
      { id: 10, callFrame: frame('info', 'file:///x/node_modules/pino/lib/proto.js') },
    ],
    samples: [4, 4, 6, 7, 8, 8, 9, 10],
  };
  it('attributes each busy sample to the innermost frame that names a stage', () => {
    const t = stagesOf(profile);
    expect({ busy: t.busy, idle: t.idle }).toEqual({ busy: 6, idle: 2 });
    expect(Object.fromEntries(t.samples)).toEqual({
      'write batch': 2,
      'database driver': 1,
      compare: 1,
      'garbage collection': 1,
      logging: 1,
    });
  });
});
