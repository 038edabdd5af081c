import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SamlTestIdp, type SamlTestAuthnRequest, type SamlTestResponseOptions } from './saml-idp.js';

/** Options of {@link SamlTestIdpServer.start}. */
export interface SamlTestIdpServerOptions {
  /** @default 'http://127.0.0.1:<port>/saml/metadata' */
  readonly entityId?: string;
  /** The IdP's clock (pass the runtime's frozen clock so assertions fit its time window). @default () => new Date() */
  readonly clock?: () => Date;
}

/**
 * {@link SamlTestIdp} over HTTP on 127.0.0.1 (development/test addresses), for a browser or an
 * HTTP client that follows the SP's redirect: `GET /saml/sso?SAMLRequest=…&RelayState=…` answers
 * the auto-submitting form that POSTs `SAMLResponse` + `RelayState` to the request's ACS URL
 * (the user is logged in at once as the next login's NameID); `GET /saml/metadata` answers the
 * IdP metadata.
 *
 * @example
 * const server = await SamlTestIdpServer.start({ clock: () => runtime.clock.now() });
 * server.nextLogin({ nameId: 'bob@corp.test' });
 * // register server.idp.metadataXml() (or server.idp.settings('both')) for the provider, then
 * // follow the start redirect in Chromium: the form posts back to the ACS URL by itself.
 * await server.close();
 */
export class SamlTestIdpServer {
  /** Every AuthnRequest the SSO endpoint received, oldest first. */
  readonly requests: SamlTestAuthnRequest[] = [];
  private next: Partial<SamlTestResponseOptions> = {};

  private constructor(
    private readonly server: Server,
    readonly idp: SamlTestIdp,
    private readonly clock: () => Date,
  ) {}

  /** Starts the server on a free port of 127.0.0.1. */
  static async start(options: SamlTestIdpServerOptions = {}): Promise<SamlTestIdpServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const idp = new SamlTestIdp({
      entityId: options.entityId ?? `${origin}/saml/metadata`,
      ssoUrl: `${origin}/saml/sso`,
    });
    const running = new SamlTestIdpServer(server, idp, options.clock ?? (() => new Date()));
    server.on('request', (request, response) => {
      running.handle(`${origin}${request.url ?? '/'}`, request.method ?? 'GET').then(
        ({ status, type, body }) => {
          response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
        },
        () => response.writeHead(500, { 'content-type': 'text/plain' }).end('test IdP failure'),
      );
    });
    return running;
  }

  /** Shapes the response to the next AuthnRequest only (NameID, signing, attack fields…). */
  nextLogin(overrides: Partial<SamlTestResponseOptions>): void {
    this.next = overrides;
  }

  /** Stops the server. */
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(url: string, method: string): Promise<{ status: number; type: string; body: string }> {
    const path = new URL(url).pathname;
    if (method === 'GET' && path === '/saml/metadata')
      return { status: 200, type: 'application/samlmetadata+xml', body: this.idp.metadataXml() };
    if (method !== 'GET' || path !== '/saml/sso') return { status: 404, type: 'text/plain', body: 'not found' };
    const overrides = this.next;
    this.next = {};
    try {
      const answer = await this.idp.answer(url, { now: this.clock(), ...overrides });
      this.requests.push(answer.request);
      return { status: 200, type: 'text/html; charset=utf-8', body: answer.html };
    } catch {
      return { status: 400, type: 'text/plain', body: 'not a SAML AuthnRequest' };
    }
  }
}
