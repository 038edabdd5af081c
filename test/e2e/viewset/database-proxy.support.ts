import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in the test process between an app and its database, so a test can take the
 * database away without root: `stop()` refuses new connections and cuts open ones, `freeze()`
 * keeps every connection open but forwards nothing (a network black hole), `resume()` serves again
 * on the same port.
 */
export class DatabaseProxy {
  private readonly server: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  private readonly held: (() => void)[] = [];
  private port = 0;

  private constructor(private readonly target: URL) {
    this.server = createServer((client) => this.pipe(client));
  }

  /** Starts a proxy to the host and port of `databaseUrl`. */
  static async start(databaseUrl: string): Promise<DatabaseProxy> {
    const proxy = new DatabaseProxy(new URL(databaseUrl));
    await proxy.listen();
    return proxy;
  }

  /** `databaseUrl` with the proxy's address in place of the database's. */
  get url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** The database is gone: new connections are refused, open ones are cut. */
  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await closed;
  }

  /** The database stops answering: connections stay open, nothing is forwarded either way. */
  freeze(): void {
    this.frozen = true;
  }

  /** Serves again: listens again after `stop()`, forwards what was held back after `freeze()`. */
  async resume(): Promise<void> {
    this.frozen = false;
    for (const release of this.held.splice(0)) release();
    if (!this.server.listening) await this.listen();
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.stop();
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private pipe(client: Socket): void {
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  /** Copies `from` to `to`, holding chunks back while frozen (in order, released by `resume`). */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (!this.frozen) {
        to.write(chunk);
        return;
      }
      this.held.push(() => {
        if (!to.destroyed) to.write(chunk);
      });
    });
  }
}
