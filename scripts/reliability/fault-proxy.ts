import net from 'node:net';

export type ProxyMode = 'through' | 'reset' | 'silent';

export interface FaultProxy {
  port: number;
  /** Every connection open now is reset, and new ones are reset as they arrive, until heal(). */
  reset(): void;
  /** Connections stay open but nothing crosses either way (a link whose packets are dropped), until heal(). */
  silence(): void;
  /** Traffic flows again; connections cut while faulty stay cut. */
  heal(): void;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy between a server and its database that can cut or silence the link: what an operator sees when the
 * database restarts, a firewall drops a flow, or a switch loses packets. `target` is host:port.
 */
export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: ProxyMode = 'through';
  let count = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();

  const server = net.createServer((client) => {
    count++;
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        // A silent link swallows what is sent, as a path dropping packets would.
        if (mode === 'through') to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      if (!client.destroyed) client.destroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    reset() {
      mode = 'reset';
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    silence() {
      mode = 'silent';
    },
    heal() {
      mode = 'through';
    },
    accepted: () => count,
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
