// A connection whose query timed out is wedged under a blackhole (no RST, no FIN): it must be
// discarded, not pooled again, or every later query handed it (each webhook's insert) times out
// too until TCP gives up. A TCP proxy in this process stops forwarding for the connections open
// at the blackhole, and forwards connections opened after it is lifted.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';
import { openDatabase, type Db } from '../src/db/connect.ts';

function blackholeProxy(target: { host: string; port: number }) {
  let blackholed = false;
  const sockets: net.Socket[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.push(client, upstream);
    // A pair opened while blackholed stays dead: a partition forwards nothing, the handshake included.
    let dead = blackholed;
    const kill = () => (dead = true);
    holes.add(kill);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (d) => {
        if (!dead) to.write(d);
      });
      from.on('error', () => undefined);
    }
  });
  const holes = new Set<() => void>();
  return {
    accepted: () => sockets.length / 2,
    listen: () => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port))),
    /** Every connection open now forwards nothing from here on, and so does every new one until lift(). */
    blackhole: () => {
      blackholed = true;
      for (const kill of holes) kill();
    },
    /** New connections are forwarded again; the blackholed ones stay dead (no FIN, no RST ever arrives). */
    lift: () => (blackholed = false),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

describe.skipIf(requiresServer('a TCP proxy in front of a Postgres server'))('query timeout on a blackholed connection', () => {
  let t: TestDatabase;
  let proxy: ReturnType<typeof blackholeProxy>;
  let db: Db;

  beforeAll(async () => {
    t = await createTestDatabase('query_timeout');
    const u = new URL(t.url!);
    proxy = blackholeProxy({ host: u.hostname, port: Number(u.port || 5432) });
    u.host = `127.0.0.1:${await proxy.listen()}`;
    db = await openDatabase(loadConfig({ DATABASE_URL: u.toString(), DATABASE_QUERY_TIMEOUT_MS: '1000' }));
  });
  afterAll(async () => {
    await db?.close().catch(() => undefined);
    await proxy?.close();
    await t?.drop();
  });

  it('after a query timeout the wedged connection is destroyed: the next query succeeds on a fresh connection', async () => {
    expect((await db.knex.raw('select 1 as ok')).rows[0].ok).toBe(1);
    expect(proxy.accepted()).toBe(1);
    proxy.blackhole();
    await expect(db.knex.raw('select 2 as ok')).rejects.toThrow(/timeout/i);
    proxy.lift();
    // Pooled again, the wedged connection would be handed out here and this query would time out as well.
    expect((await db.knex.raw('select 3 as ok')).rows[0].ok).toBe(3);
    expect(proxy.accepted()).toBe(2);
  }, 20_000);
});
