/**
 * Where a reconcile process's main thread spent its time, by stage of the pipeline, from a V8
 * `.cpuprofile` (node --cpu-prof): each sample goes to the stage of the innermost frame that names
 * one. A payrecon module names its stage (by folder, file and for the run's own file by function); a
 * library only where nothing of payrecon is on the stack (a socket callback: pg parsing an answer,
 * undici reading one), except logging, metrics and progress libraries, which always name theirs.
 * Written for issue 42; the rules cover the layout of ff4438f (src/runner/) and today's (src/reconcile/).
 */

export const STAGES = [
  'fetch and parse',
  'compare',
  'write batch',
  'case sync',
  'read orders and webhook facts',
  'row mapping and validation',
  'database driver',
  'metrics',
  'logging',
  'job bookkeeping',
  'pipeline scheduling',
  'start-up and teardown',
  'garbage collection',
  'other (node internals, V8)',
] as const;
export type Stage = (typeof STAGES)[number];

interface CallFrame {
  functionName: string;
  url: string;
}
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
  startTime: number;
  endTime: number;
}

/** Functions of the run's own file (src/reconcile/execute-run.ts, formerly src/runner/reconcile.ts), by what they do. */
const RUN_FUNCTIONS: Record<string, Stage> = {
  fetchOne: 'fetch and parse',
  compareOne: 'compare',
  finish: 'compare',
  commitPage: 'write batch',
  commit: 'write batch',
  writeChecks: 'write batch',
  recheckLost: 'write batch',
  loadNotified: 'read orders and webhook facts',
  pagesWithNotifications: 'read orders and webhook facts',
};

/** Functions that read a row the driver returned into a typed value, wherever they live. */
const ROW_MAPPERS = /^(to[A-Z]\w*Row|toItem|toStoredCase|toCase|runCounts|verdictOf)$/;

/** Payrecon modules (path below src/, without extension): the first pattern that matches decides. */
const MODULE_RULES: Array<[RegExp, Stage | 'weak']> = [
  [/^(provider\/|(reconcile|runner)\/fetch-answer$)/, 'fetch and parse'],
  [/^(recon\/|(reconcile|runner)\/check-order$|(reconcile|runner)\/policy-from-config$)/, 'compare'],
  [/^(cases\/|db\/case)/, 'case sync'],
  [/^metrics\//, 'metrics'],
  [/^log\//, 'logging'],
  [/^db\/(row|amounts)$/, 'row mapping and validation'],
  [/^(db\/(items|unnest|refusal)|(reconcile|runner)\/write-batch)$/, 'write batch'],
  [/^(db\/webhook-events|reconcile\/order-pages)$/, 'read orders and webhook facts'],
  [
    /^(db\/(runs|locks|lock-wait|lock-holder|advisory)|reconcile\/(run-state|reconcile|failure-window)|runner\/failure-window|cli-ui\/)/,
    'job bookkeeping',
  ],
  [/^(reconcile|runner)\/ordered-pipeline$/, 'pipeline scheduling'],
  // Shared words (refs, statuses, decimals) are called from every stage: the caller decides.
  [/^(domain|money)\//, 'weak'],
  [/^(runtime|config|services|commands|notify|db\/(connect|migrate|engine|sql-files|installation|query-timeout)|cli|main)/, 'weak'],
];

/** Libraries: `strong` ones decide wherever they are; the others only when no payrecon frame is on the stack. */
const PACKAGE_RULES: Record<string, { stage: Stage; strong: boolean }> = {
  pino: { stage: 'logging', strong: true },
  'sonic-boom': { stage: 'logging', strong: true },
  'thread-stream': { stage: 'logging', strong: true },
  'prom-client': { stage: 'metrics', strong: true },
  'cli-progress': { stage: 'job bookkeeping', strong: true },
  undici: { stage: 'fetch and parse', strong: false },
  'lossless-json': { stage: 'fetch and parse', strong: false },
  'decimal.js': { stage: 'compare', strong: false },
  'postgres-date': { stage: 'row mapping and validation', strong: false },
  'pg-types': { stage: 'row mapping and validation', strong: false },
  'postgres-array': { stage: 'row mapping and validation', strong: false },
  pg: { stage: 'database driver', strong: false },
  'pg-protocol': { stage: 'database driver', strong: false },
  'pg-pool': { stage: 'database driver', strong: false },
  knex: { stage: 'database driver', strong: false },
  tarn: { stage: 'database driver', strong: false },
  'p-limit': { stage: 'pipeline scheduling', strong: false },
  'yocto-queue': { stage: 'pipeline scheduling', strong: false },
};

function packageOf(url: string): string | undefined {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  return m?.[1];
}

function moduleOf(url: string): string | undefined {
  const m = /\/(?:dist\/)?src\/(.+)\.[cm]?[jt]s$/.exec(url);
  return m?.[1];
}

/** The stage one frame names: decisive, weak (a fallback if nothing decisive is found) or none. */
function frameStage(frame: CallFrame): { stage: Stage; decisive: boolean } | undefined {
  const { url, functionName } = frame;
  if (url.startsWith('node:internal/modules') || url.startsWith('node:internal/bootstrap')) {
    return { stage: 'start-up and teardown', decisive: true };
  }
  const mod = moduleOf(url);
  if (mod && !url.includes('node_modules')) {
    if (ROW_MAPPERS.test(functionName)) return { stage: 'row mapping and validation', decisive: true };
    if (mod === 'reconcile/execute-run' || mod === 'runner/reconcile') {
      return { stage: RUN_FUNCTIONS[functionName] ?? 'job bookkeeping', decisive: true };
    }
    if (mod === 'db/orders') {
      return /^(select|count)/.test(functionName) || functionName === 'filtered' || functionName === 'dueBranches'
        ? { stage: 'read orders and webhook facts', decisive: true }
        : { stage: 'write batch', decisive: true };
    }
    for (const [re, stage] of MODULE_RULES) {
      if (!re.test(mod)) continue;
      return stage === 'weak' ? { stage: 'start-up and teardown', decisive: false } : { stage, decisive: true };
    }
    return { stage: 'start-up and teardown', decisive: false };
  }
  const pkg = packageOf(url);
  if (pkg && PACKAGE_RULES[pkg]) return { stage: PACKAGE_RULES[pkg].stage, decisive: PACKAGE_RULES[pkg].strong };
  // undici's HTTP parser is WebAssembly (llhttp); the only wasm a reconcile process runs.
  if (url.startsWith('wasm://')) return { stage: 'fetch and parse', decisive: false };
  return undefined;
}

export interface StageTable {
  /** Samples per stage; idle samples are left out of every figure. */
  samples: Map<Stage, number>;
  busy: number;
  idle: number;
}

export function stagesOf(profile: CpuProfile): StageTable {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOfNode = new Map<number, Stage | 'idle'>();
  const classify = (leaf: number): Stage | 'idle' => {
    const known = stageOfNode.get(leaf);
    if (known) return known;
    const name = byId.get(leaf)!.callFrame.functionName;
    let stage: Stage | 'idle' | undefined =
      name === '(idle)'
        ? 'idle'
        : name === '(garbage collector)'
          ? 'garbage collection'
          : name === '(program)'
            ? 'other (node internals, V8)'
            : undefined;
    let fallback: Stage | undefined;
    for (let id: number | undefined = leaf; stage === undefined && id !== undefined; id = parent.get(id)) {
      const s = frameStage(byId.get(id)!.callFrame);
      if (s?.decisive) stage = s.stage;
      else if (s && fallback === undefined) fallback = s.stage;
    }
    stage ??= fallback ?? 'other (node internals, V8)';
    stageOfNode.set(leaf, stage);
    return stage;
  };
  const samples = new Map<Stage, number>();
  let idle = 0;
  for (const leaf of profile.samples) {
    const s = classify(leaf);
    if (s === 'idle') idle++;
    else samples.set(s, (samples.get(s) ?? 0) + 1);
  }
  return { samples, busy: profile.samples.length - idle, idle };
}
