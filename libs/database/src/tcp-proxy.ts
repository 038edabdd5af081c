import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of a database server that a test can freeze and thaw. */
export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops every byte in both directions, as a frozen server (SIGSTOP) or a network black hole
   * does: nothing is read, nothing is refused, new connections are accepted and left waiting.
   */
  freeze(): void;
  /** Lets everything flow again, what was held back included. */
  thaw(): void;
  /**
   * The server is gone, as a stopped or crashed one: new connections are refused and every open
   * one is cut. {@link restart} serves again on the same port.
   */
  stop(): Promise<void>;
  /** Listens again on the same port after {@link stop}; a no-op while listening. */
  restart(): Promise<void>;
  /** Connections currently open through the proxy. */
  connections(): number;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 (an OS-chosen port) forwarding to the host and port of `targetUrl`
 * (a `postgres://` URL), in the calling process, without root: the fault-injection harness of the
 * database-fault tests and of `bench/faults`.
 *
 * @example
 * const proxy = await startTcpProxy(database.url);
 * // boot the app on proxy.url, then:
 * proxy.freeze(); // requests now hit a database that does not answer
 * proxy.thaw();
 */
export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let frozen = false;
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined; connect(): void }>();

  const server: Server = createServer((client) => {
    const pair = {
      client,
      upstream: undefined as Socket | undefined,
      connect() {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
        pair.upstream = upstream;
        track(upstream);
        link(client, upstream);
        link(upstream, client);
        client.resume();
      },
    };
    pairs.add(pair);
    track(client);
    client.on('close', () => pairs.delete(pair));
    if (frozen) client.pause();
    else pair.connect();
  });

  function track(socket: Socket): void {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  }

  // 'data' listeners, not pipe(): a paused socket stays paused until thaw() resumes it.
  function link(from: Socket, to: Socket): void {
    from.on('data', (chunk) => to.write(chunk));
    from.on('end', () => to.end());
    from.on('close', () => to.destroy());
  }

  function listen(at: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  function destroyAll(): void {
    for (const socket of sockets) socket.destroy();
  }

  await listen(0);
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    port,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) if (pair.upstream === undefined) pair.connect();
      for (const socket of sockets) socket.resume();
    },
    stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      destroyAll();
      return closed;
    },
    restart: () => (server.listening ? Promise.resolve() : listen(port)),
    connections: () => pairs.size,
    close() {
      destroyAll();
      return server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    },
  };
}
