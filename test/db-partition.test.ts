// A network partition between payrecon and Postgres: packets stop, no RST arrives. Without a
// query timeout a run waits forever on the dead socket, holding its lock. A TCP proxy in this
// process forwards to Postgres until it is frozen: from then on it reads and forwards nothing.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';

function freezingProxy(target: { host: string; port: number }) {
  let frozen = false;
  const sockets: net.Socket[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.push(client, upstream);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (d) => {
        if (!frozen) to.write(d);
      });
      from.on('error', () => undefined);
    }
  });
  return {
    listen: () => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port))),
    /** Packets stop both ways; connections stay open (no FIN, no RST), as in a partition. */
    freeze: () => (frozen = true),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

describe.skipIf(requiresServer('a TCP proxy in front of a Postgres server'))('database partition (no RST)', () => {
  let t: TestDatabase;
  let proxy: ReturnType<typeof freezingProxy>;
  let db: Db;

  beforeAll(async () => {
    t = await createTestDatabase('partition');
    const u = new URL(t.url!);
    proxy = freezingProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.host = `127.0.0.1:${await proxy.listen()}`;
    db = await openDatabase(loadConfig({ DATABASE_URL: u.toString(), DATABASE_QUERY_TIMEOUT_MS: '1500' }));
  });
  afterAll(async () => {
    await db?.close().catch(() => undefined);
    await proxy?.close();
    await t?.drop();
  });

  it('a query on a partitioned connection fails with a timeout instead of waiting forever', async () => {
    expect((await db.knex.raw('select 1 as ok')).rows[0].ok).toBe(1);
    proxy.freeze();
    // Without the timeout this promise never settles and the test itself times out.
    await expect(db.knex.raw('select 2 as ok')).rejects.toThrow(/timeout/i);
  }, 20_000);
});
