/**
 * What a job cost Postgres beyond CPU (issue 30): WAL and its full-page images, buffers written by
 * backends instead of the checkpointer, index blocks read from outside shared_buffers, and the
 * costliest statements. Snapshots before and after the job, differenced. The WAL and bgwriter
 * counters are the server's: they mean the job's only on a server nothing else writes to.
 */
import pg from 'pg';

type Row = Record<string, string | number | null>;

export interface PgSnapshot {
  wal: { records: number; fpi: number; bytes: number };
  bgwriter: { checkpoints: number; buffers_checkpoint: number; buffers_clean: number; buffers_backend: number };
  /** Per index of the bench database: blocks read (outside shared_buffers) and hit. */
  indexes: Map<string, { read: number; hit: number }>;
  /** Per table of the bench database: heap blocks read and hit. */
  heaps: Map<string, { read: number; hit: number }>;
}

export interface PgCost {
  /** The server settings these figures depend on, as the server reports them. */
  settings: Record<string, string>;
  wal_bytes_per_order: number;
  wal_fpi_per_order: number;
  wal_records_per_order: number;
  checkpoints: number;
  buffers_backend_per_order: number;
  buffers_checkpoint_per_order: number;
  /** Index and heap blocks read (not hit) per order, biggest first; only those with any reads. */
  blocks_read_per_order: Record<string, number>;
  blocks_hit_per_order: Record<string, number>;
  /** Costliest statements by total execution time (pg_stat_statements, when the server has it). */
  statements: Array<{ query: string; calls: number; ms_total: number; rows: number; blks_read: number; wal_fpi: number }>;
}

const num = (v: unknown) => Number(v ?? 0);

async function query(url: string, sql: string): Promise<Row[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Row[];
  } finally {
    await c.end();
  }
}

/** Resets pg_stat_statements where it is installed (on the admin database); false where it is not. */
export async function resetStatements(serverUrl: string): Promise<boolean> {
  try {
    await query(serverUrl, 'SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

export async function snapshot(serverUrl: string, dbUrl: string): Promise<PgSnapshot> {
  const [w] = await query(serverUrl, 'SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal');
  const [b] = await query(
    serverUrl,
    `SELECT checkpoints_timed + checkpoints_req AS checkpoints, buffers_checkpoint, buffers_clean, buffers_backend FROM pg_stat_bgwriter`,
  );
  const idx = await query(dbUrl, 'SELECT indexrelname AS name, idx_blks_read AS read, idx_blks_hit AS hit FROM pg_statio_user_indexes');
  const heap = await query(dbUrl, 'SELECT relname AS name, heap_blks_read AS read, heap_blks_hit AS hit FROM pg_statio_user_tables');
  const toMap = (rows: Row[]) => new Map(rows.map((r) => [String(r.name), { read: num(r.read), hit: num(r.hit) }]));
  return {
    wal: { records: num(w.wal_records), fpi: num(w.wal_fpi), bytes: num(w.wal_bytes) },
    bgwriter: {
      checkpoints: num(b.checkpoints),
      buffers_checkpoint: num(b.buffers_checkpoint),
      buffers_clean: num(b.buffers_clean),
      buffers_backend: num(b.buffers_backend),
    },
    indexes: toMap(idx),
    heaps: toMap(heap),
  };
}

async function topStatements(serverUrl: string, dbName: string): Promise<PgCost['statements']> {
  try {
    const rows = await query(
      serverUrl,
      `SELECT left(regexp_replace(s.query, '\\s+', ' ', 'g'), 160) AS query, s.calls, round(s.total_exec_time)::int8 AS ms,
              s.rows, s.shared_blks_read AS blks_read, s.wal_fpi
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = '${dbName.replace(/[^a-z0-9_]/g, '')}'
        ORDER BY s.total_exec_time DESC LIMIT 8`,
    );
    return rows.map((r) => ({
      query: String(r.query),
      calls: num(r.calls),
      ms_total: num(r.ms),
      rows: num(r.rows),
      blks_read: num(r.blks_read),
      wal_fpi: num(r.wal_fpi),
    }));
  } catch {
    return [];
  }
}

export async function costOf(serverUrl: string, dbName: string, before: PgSnapshot, after: PgSnapshot, orders: number): Promise<PgCost> {
  const per = (n: number) => Number((n / orders).toFixed(3));
  const blocks = (kind: 'read' | 'hit') => {
    const out: Array<[string, number]> = [];
    for (const [prefix, b, a] of [['', before.indexes, after.indexes] as const, ['heap:', before.heaps, after.heaps] as const]) {
      for (const [name, v] of a) {
        const d = v[kind] - (b.get(name)?.[kind] ?? 0);
        if (d > 0) out.push([prefix + name, per(d)]);
      }
    }
    return Object.fromEntries(out.sort((x, y) => y[1] - x[1]).slice(0, 20));
  };
  const settings = await query(
    serverUrl,
    `SELECT name, setting || coalesce(' ' || unit, '') AS value FROM pg_settings
      WHERE name IN ('shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'wal_compression', 'work_mem')`,
  );
  return {
    settings: Object.fromEntries(settings.map((r) => [String(r.name), String(r.value)])),
    wal_bytes_per_order: Math.round((after.wal.bytes - before.wal.bytes) / orders),
    wal_fpi_per_order: per(after.wal.fpi - before.wal.fpi),
    wal_records_per_order: per(after.wal.records - before.wal.records),
    checkpoints: after.bgwriter.checkpoints - before.bgwriter.checkpoints,
    buffers_backend_per_order: per(after.bgwriter.buffers_backend - before.bgwriter.buffers_backend),
    buffers_checkpoint_per_order: per(after.bgwriter.buffers_checkpoint - before.bgwriter.buffers_checkpoint),
    blocks_read_per_order: blocks('read'),
    blocks_hit_per_order: blocks('hit'),
    statements: await topStatements(serverUrl, dbName),
  };
}
