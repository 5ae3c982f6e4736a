import type pg from 'pg';

/** pg's error when query_timeout passes without an answer (pg/lib/client.js). */
const READ_TIMEOUT = 'Query read timeout';

type Callback = (err: Error | null, result?: unknown) => void;
type Disposable = pg.Client & { __knex__disposed?: unknown };

/**
 * knex pool afterCreate hook: a connection whose query timed out is discarded, not pooled again.
 * pg gives up on the query but keeps the client, its unanswered query still in front of every later
 * one, so under a partition each query handed that connection would time out too. Marked disposed,
 * knex's pool validation drops it; end() on a client with a query in flight destroys the socket.
 */
export function discardOnQueryTimeout(conn: Disposable, done: (err: Error | null, conn: Disposable) => void): void {
  // pg's query() is a set of overloads (promise, callback, stream); this wraps the callback form and passes the rest on.
  const query = conn.query.bind(conn) as (config: unknown, callback?: Callback) => unknown;
  conn.query = ((config: unknown, callback?: Callback) => {
    if (typeof callback !== 'function') return query(config, callback);
    return query(config, (err, result) => {
      if (err?.message === READ_TIMEOUT && !conn.__knex__disposed) {
        conn.__knex__disposed = err;
        void conn.end().catch(() => undefined);
      }
      callback(err, result);
    });
  }) as typeof conn.query;
  done(null, conn);
}
