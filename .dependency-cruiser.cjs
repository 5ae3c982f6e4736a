// The layers of ARCHITECTURE.md as rules; `npm test` fails on any import against them.
// Tiers, top to bottom (a module imports its own tier or lower ones, never higher):
//   entries    src/cli.ts, jobs/ (jobs: thin entries nothing imports)
//   commands   src/commands
//   services   src/services (one module per job), src/demo
//   runtime    src/runtime (withJob, exit codes, alerting)
//   pipelines  src/reconcile, src/import, src/snapshot, src/banks, src/webhook, src/report, src/status, src/schedule, src/cli-ui, src/sandbox, src/cases, src/console, src/metrics, src/doctor, src/prune, src/movements, src/statements, src/worker
//   core/io    src/recon (pure core), src/db, src/provider, src/notify
//   base       src/config, src/money, src/log, src/html (the one HTML builder, escaping by default), src/domain (the words every layer shares: amounts, directions,
//              statuses, verdicts, refs, business dates, exit statuses and the errors that carry them), src/tabular (the table model, its
//              cell formats and the workbook writer: the report and the case export both write through it)
const ENTRIES = '^(src/cli[.]ts|jobs/)';
const COMMANDS = '^src/commands/';
const SERVICES = '^src/(services|demo)/';
const RUNTIME = '^src/runtime/';
const PIPELINES =
  '^src/(reconcile|import|snapshot|banks|webhook|report|status|schedule|cli-ui|sandbox|console|cases|metrics|doctor|prune|movements|statements|worker)/';
const CORE_IO = '^src/(recon|db|provider|notify)/';
const BASE = '^src/(config|money|log|domain|html|tabular)/';

const upward = (name, from, above) => ({
  name,
  severity: 'error',
  comment: `${name}: imports a higher layer (see ARCHITECTURE.md)`,
  from: { path: from },
  to: { path: above },
});

module.exports = {
  forbidden: [
    {
      name: 'nothing-imports-jobs',
      severity: 'error',
      comment: 'jobs/ are entries for cron and containers; src/, tests and benches call src/services instead',
      from: {},
      to: { path: '^jobs/' },
    },
    {
      name: 'jobs-are-thin',
      severity: 'error',
      comment: 'a job entry reaches src/ only through the wrapper (runtime), its service and config',
      from: { path: '^jobs/' },
      to: { path: '^src/', pathNot: '^src/(runtime|services|config)/' },
    },
    upward('commands-upward', COMMANDS, ENTRIES),
    upward('services-upward', SERVICES, `${ENTRIES}|${COMMANDS}`),
    upward('runtime-upward', RUNTIME, `${ENTRIES}|${COMMANDS}|${SERVICES}`),
    upward('pipelines-upward', PIPELINES, `${ENTRIES}|${COMMANDS}|${SERVICES}|${RUNTIME}`),
    upward('core-io-upward', CORE_IO, `${ENTRIES}|${COMMANDS}|${SERVICES}|${RUNTIME}|${PIPELINES}`),
    upward('base-upward', BASE, `${ENTRIES}|${COMMANDS}|${SERVICES}|${RUNTIME}|${PIPELINES}|${CORE_IO}`),
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'src/recon decides from values passed in: no database, network, files or clock',
      from: { path: '^src/recon/' },
      to: { path: '^src/', pathNot: '^src/(recon|money|domain)/' },
    },
    {
      name: 'core-no-io',
      severity: 'error',
      comment: 'src/recon imports no I/O module',
      from: { path: '^src/recon/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'domain-is-a-leaf',
      severity: 'error',
      comment: 'src/domain is the shared vocabulary: it names things and imports nothing of payrecon but money',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain|money)/' },
    },
    {
      name: 'tabular-is-a-leaf',
      severity: 'error',
      comment:
        'src/tabular writes tables (CSV cells, workbooks) for the report and the case export alike: it knows nothing of either, only money',
      from: { path: '^src/tabular/' },
      to: { path: '^src/', pathNot: '^src/(tabular|money)/' },
    },
    {
      name: 'only-db-imports-knex',
      severity: 'error',
      comment: 'database access lives in src/db: elsewhere the types come from src/db/knex-types.ts, the queries from repositories',
      from: { path: '^(src|jobs)/', pathNot: '^src/db/' },
      to: { path: '(^|/)node_modules/knex/' },
    },
    {
      name: 'src-not-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a cycle hides which module is the lower one',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // knex stays in the graph (not followed) for only-db-imports-knex; every other package is left out.
    exclude: { path: 'node_modules/(?!knex/)' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
