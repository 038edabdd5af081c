import { Injectable, Logger, NotFoundException, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorHandler } from './error-handler.js';
import { Exchange } from './exchange.js';
import { Pipeline } from './pipeline.js';
import type { Router } from './router/router.js';
import type { ManagementListenerOptions } from './router.options.js';

/** Longest a request may take to arrive in full on the management listener. */
const REQUEST_TIMEOUT_MS = 10_000;
/** At shutdown, requests in flight get this long before their connections are cut. */
const CLOSE_GRACE_MS = 1_000;

/**
 * The management listener could not start (its port is taken, the host is not an address of this
 * machine, the port is out of range). The message names the address and the system error code.
 */
export class ManagementListenerError extends Error {
  override readonly name = 'ManagementListenerError';
}

/**
 * The optional second HTTP server of {@link ManagementListenerOptions}: serves one route table on
 * a plain Node server and closes it when the application shuts down. `RouterHost` starts it.
 *
 * @example
 * const { port } = app.get(ManagementListener).address()!;
 */
@Injectable()
export class ManagementListener implements OnApplicationShutdown {
  private readonly logger = new Logger('ManagementListener');
  private server: Server | undefined;

  /** The bound address while listening, else `undefined`. */
  address(): AddressInfo | undefined {
    const address = this.server?.address();
    return address !== null && typeof address === 'object' ? address : undefined;
  }

  /** Listens on `options` and serves `router`; rejects with {@link ManagementListenerError}. */
  async start(options: ManagementListenerOptions, router: Router): Promise<void> {
    const where = `${options.host ?? '*'}:${options.port}`;
    if (this.server !== undefined) throw new ManagementListenerError(`management listener already started (${where})`);
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
      throw new ManagementListenerError(`management port must be an integer from 0 to 65535, got ${options.port}`);
    }
    const pipeline = new Pipeline().use(router.asMiddleware());
    const errors = new ErrorHandler();
    const server = createServer(
      { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
      (req: IncomingMessage, res: ServerResponse) => {
        const exchange = new Exchange(req, res);
        pipeline.handle(exchange).then(
          (answered) => {
            if (!answered) exchange.respond({ status: 404, body: new NotFoundException().getResponse() });
          },
          (error: unknown) => errors.handle(error, exchange),
        );
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new ManagementListenerError(`management listener cannot listen on ${where}: ${error.code ?? error.message}`, {
            cause: error,
          }),
        ),
      );
      server.listen({ port: options.port, host: options.host }, resolve);
    });
    server.on('error', (error) => this.logger.error(`Management listener error: ${error.message}`));
    this.server = server;
    this.logger.log(`Management listener on ${formatAddress(this.address()!)}`);
  }

  /** Stops accepting, lets requests in flight finish for up to 1 s, then cuts what is left. */
  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    cut.unref();
    await closed;
    clearTimeout(cut);
  }
}

/**
 * `host:port` of a bound address, an IPv6 host in brackets (`[::]:9000`, `127.0.0.1:9000`).
 *
 * @example
 * logger.log(`listening on ${formatAddress(listener.address()!)}`);
 */
export function formatAddress(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}
