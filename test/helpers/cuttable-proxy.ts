import net from 'node:net';

/** A TCP proxy (to Postgres, to the sandbox) that can be taken down (every connection cut, new ones refused) and brought back. */
export function cuttableProxy(target: { host: string; port: number }) {
  let down = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    listen: () => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port))),
    cut: () => {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore: () => void (down = false),
    close: () => {
      down = true;
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}
