import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SamlTestIdp } from '../../support/federation/saml-idp.js';

/** The SAML test IdP behind a real HTTP endpoint, for Chromium. */
export interface SamlBrowserIdp {
  /** The signing IdP (entity ID `…/saml/metadata`, HTTP-Redirect SSO URL `…/saml/sso`). */
  readonly idp: SamlTestIdp;
  /** The next AuthnRequest is answered for `nameId` (the user "signs in" at the IdP). */
  nextLogin(nameId: string): void;
  close(): Promise<void>;
}

/**
 * Serves the SAML test IdP's single sign-on endpoint on http://127.0.0.1:<free port>: each
 * HTTP-Redirect AuthnRequest is answered for the queued NameID with a really signed Response in
 * the auto-submitting HTML form a real IdP serves, which the browser posts to the ACS URL
 * (cross-site, HTTP-POST binding). With no login queued it answers 403.
 *
 * @example
 * const saml = await startSamlBrowserIdp();
 * saml.nextLogin('employee-1');
 */
export async function startSamlBrowserIdp(): Promise<SamlBrowserIdp> {
  const logins: string[] = [];
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = new SamlTestIdp({ entityId: `${origin}/saml/metadata`, ssoUrl: `${origin}/saml/sso` });
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const nameId = url.pathname === '/saml/sso' && req.method === 'GET' ? logins.shift() : undefined;
    if (nameId === undefined) {
      res.writeHead(url.pathname === '/saml/sso' ? 403 : 404, { 'content-type': 'text/plain' });
      res.end('test SAML IdP: no login queued for this request');
      return;
    }
    idp.answer(url.href, { nameId }).then(
      ({ html }) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(html);
      },
      (error: unknown) => {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(`test SAML IdP: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  });
  return {
    idp,
    nextLogin: (nameId) => void logins.push(nameId),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
