import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionCaps {
  /** Open connections in all. */
  maxConnections: number;
  /** Open connections from one remote address. */
  maxConnectionsPerAddress: number;
}

export interface ConnectionCounts {
  open: number;
  /** Connections with a request being answered. */
  busy: number;
}

export interface GuardedConnections {
  counts(): ConnectionCounts;
  /** Closes every connection not answering a request, those that never sent one included (server.closeIdleConnections skips them). */
  closeIdle(): void;
}

interface Tracked {
  address: string;
  /** Requests read and not yet answered. */
  busy: number;
  /** Order in which connections last went idle (or opened): the lowest is evicted first. */
  idleSince: number;
}

/**
 * Caps the server's connections without letting idle ones starve deliveries: a connection over
 * a cap evicts the longest-idle connection (its own address's first when that address is at its
 * cap) and is refused only when every candidate is answering a request. An idle socket costs its
 * holder nothing, so under a cap that refuses new ones a client could keep the provider out for
 * as long as it liked; a busy one is bounded by the server's request timeouts.
 */
export function guardConnections(server: Server, caps: ConnectionCaps): GuardedConnections {
  const open = new Map<Socket, Tracked>();
  let clock = 0;

  const evictIdle = (among: (t: Tracked) => boolean): boolean => {
    let oldest: [Socket, Tracked] | undefined;
    for (const entry of open) {
      if (entry[1].busy === 0 && among(entry[1]) && (!oldest || entry[1].idleSince < oldest[1].idleSince)) oldest = entry;
    }
    if (!oldest) return false;
    open.delete(oldest[0]);
    oldest[0].destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    let fromAddress = 0;
    for (const t of open.values()) if (t.address === address) fromAddress++;
    const room =
      (fromAddress < caps.maxConnectionsPerAddress || evictIdle((t) => t.address === address)) &&
      (open.size < caps.maxConnections || evictIdle(() => true));
    if (!room) {
      socket.destroy();
      return;
    }
    open.set(socket, { address, busy: 0, idleSince: clock++ });
    socket.once('close', () => open.delete(socket));
  });

  server.prependListener('request', (req, res) => {
    const tracked = open.get(req.socket);
    if (!tracked) return;
    tracked.busy++;
    res.once('close', () => {
      tracked.busy--;
      tracked.idleSince = clock++;
    });
  });

  return {
    counts: () => ({ open: open.size, busy: [...open.values()].filter((t) => t.busy > 0).length }),
    closeIdle: () => {
      for (const [socket, t] of open) if (t.busy === 0) socket.destroy();
    },
  };
}
