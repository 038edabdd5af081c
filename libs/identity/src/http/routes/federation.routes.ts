import { IdentityError } from '../../errors/identity.errors.js';
import { PROVIDER_ID_PATTERN } from '../../federation/federation-provider.js';
import { signInOptionView } from '../../federation/federation-provider.view.js';
import { sessionCookie } from '../../sessions/session-cookie.js';
import {
  federationCsrfCookie,
  oidcCallbackQuery,
  requireNoQueryOrBody,
  samlCallbackForm,
  stateCookie,
  stateSelector,
} from '../federation-http.js';
import { respondIdentityJson } from '../identity-response.js';
import type { FederationSignedIn } from '../../federation/federation-sign-in.service.js';
import { arrayOf, ref, type CookieEffect } from './route-doc.js';
import { route, type IdentityRouteTable, type RouteCall } from './route-table.js';
import { timingSafeEqual } from 'node:crypto';

const BASE = '/identity/v1/federation/:tenantId';
const PROVIDER = `${BASE}/:providerId`;
const CLEARS_STATE: CookieEffect[] = [
  { cookie: 'oidc_state', effect: 'clear', always: false },
  { cookie: 'saml_state', effect: 'clear', always: false },
];
const SIGNED_IN = {
  description:
    'Signed in: `Location` is the fixed success URL (`publicBaseUrl` + `federation.successPath`); the session cookie and `__Host-tessera_csrf` are set and the state cookie cleared.',
  headers: { Location: { description: 'The success URL', required: true } },
  cookies: [
    { cookie: 'session', effect: 'set', always: true },
    { cookie: 'federation_csrf', effect: 'set', always: true },
    ...CLEARS_STATE,
  ],
} as const;

/** `{tenantId}` (UUIDv7, else 400) and `{providerId}` (the provider-id pattern, else 400). */
function pathOf(call: RouteCall<unknown>): { organizationId: string; providerId: string } {
  const organizationId = call.uuid('tenantId');
  const providerId = call.exchange.pathParam('providerId');
  if (providerId === undefined || !PROVIDER_ID_PATTERN.test(providerId)) throw new IdentityError('request_invalid');
  return { organizationId, providerId };
}

/** `true` when the two selectors are equal (constant time over equal lengths). */
function sameSelector(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.byteLength === right.byteLength && timingSafeEqual(left, right);
}

/** Clears both state cookies: every callback answer, success or failure, ends the transaction's cookie. */
function clearStateCookies(call: RouteCall<unknown>): void {
  call.exchange.appendHeader('set-cookie', stateCookie('oidc', '', 0));
  call.exchange.appendHeader('set-cookie', stateCookie('saml', '', 0));
}

/** 303 to the success URL with the session and CSRF hand-off cookies. */
function respondSignedIn(call: RouteCall<unknown>, signedIn: FederationSignedIn, successUrl: string): void {
  const { kernel, exchange } = call;
  exchange.appendHeader('set-cookie', sessionCookie(kernel.config.sessionCookie, signedIn.issued.cookieToken));
  exchange.appendHeader(
    'set-cookie',
    federationCsrfCookie(signedIn.issued.csrfToken, kernel.config.lifetimes.federationCsrfCookieSeconds),
  );
  exchange.respond({ status: 303, headers: { location: successUrl } });
}

/**
 * Federation sign-in routes (identity-http §6): start, the OIDC (GET) and SAML (POST) callbacks,
 * the SAML SP metadata, and the enabled providers an organization's sign-in page lists. Every
 * answer carries `Cache-Control: no-store`, `Pragma: no-cache`, `Referrer-Policy: no-referrer`
 * and `X-Content-Type-Options: nosniff` (set at stage 1½). Callbacks are not rate limited
 * (single-use 256-bit server state, identity-http §10) and not subject to the session CSRF check.
 */
export const FEDERATION_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: `${BASE}/providers`,
    callers: { anonymous: true, user: true, restricted: true },
    doc: {
      tag: 'federation',
      summary: 'The enabled single sign-on providers of an organization',
      description:
        'What an organization-specific sign-in page lists (`/identity/organizations/{orgId}/sso`): display name and start URL of each enabled provider. An unknown or inactive organization is 404.',
      responses: { 200: { description: 'The enabled providers', body: arrayOf(ref('FederationSignInOption')) } },
      errors: ['not_found', 'request_invalid'],
    },
    handle: async (call) => {
      const organizationId = call.uuid('tenantId');
      requireNoQueryOrBody(call.exchange);
      const listed = await call.services.federationProviders.signInOptions(organizationId);
      respondIdentityJson(
        call.exchange,
        200,
        listed.map((entry) => signInOptionView(call.kernel.config.publicBaseUrl, entry)),
      );
    },
  }),
  route({
    method: 'GET',
    path: `${PROVIDER}/start`,
    callers: { anonymous: true, user: true, restricted: true },
    doc: {
      tag: 'federation',
      summary: 'Start a federated sign-in',
      description:
        'No query, no body. Redirects to the IdP (OIDC authorization request with PKCE S256, state and nonce; SAML AuthnRequest over HTTP-Redirect) and sets the state cookie. Started by a signed-in passkey user (with a recent passkey, else 403 `step_up_required`), the callback links the provider identity to that user and rotates their session; another signed-in session is rotated when the sign-in reaches the same user. A start the browser marks cross-site (`Sec-Fetch-Site`) never links. Unknown, disabled or mismatched providers are 404.',
      responses: {
        302: {
          description: 'To the IdP; `Location` starts with the allowlisted IdP endpoint followed by `?`.',
          headers: { Location: { description: 'The IdP URL', required: true } },
          cookies: [
            { cookie: 'oidc_state', effect: 'set', always: false },
            { cookie: 'saml_state', effect: 'set', always: false },
          ],
        },
      },
      errors: ['not_found', 'request_invalid', 'step_up_required'],
    },
    handle: async (call) => {
      const { organizationId, providerId } = pathOf(call);
      requireNoQueryOrBody(call.exchange);
      // Fetch metadata (identity-http §6): a start the browser marks cross-site never links.
      const site = call.exchange.headerValues('sec-fetch-site');
      const crossSite = site.some((value) => value !== 'same-origin' && value !== 'none');
      const started = await call.services.federation.start(call, call.context, organizationId, providerId, crossSite);
      call.exchange.appendHeader('set-cookie', stateCookie(started.protocol, started.selector, started.maxAgeSeconds));
      call.exchange.respond({ status: 302, headers: { location: started.location } });
    },
  }),
  route({
    method: 'GET',
    path: `${PROVIDER}/callback`,
    callers: { anonymous: true, user: true, restricted: true },
    signIn: 'oidc',
    doc: {
      tag: 'federation',
      summary: 'OIDC callback (authorization code)',
      description:
        'Query of exactly `code` (1..8192) and `state` (16..512), plus RFC 9207 `iss` when the provider sends it, ≤ 12 KiB; or an authorization error response (401). The state must equal the `__Host-tessera_oidc_state` cookie and is consumed once.',
      query: {
        code: { description: 'The authorization code', schema: { type: 'string', minLength: 1, maxLength: 8192 } },
        state: { description: 'The state of the start', schema: { type: 'string', minLength: 16, maxLength: 512 } },
        iss: { description: 'RFC 9207 issuer identification', schema: { type: 'string' } },
      },
      responses: { 303: SIGNED_IN },
      errors: ['not_found', 'request_invalid', 'invalid_credentials'],
    },
    handle: async (call) => {
      const { organizationId, providerId } = pathOf(call);
      clearStateCookies(call);
      const query = oidcCallbackQuery(call.exchange);
      const provider = await call.services.federation.callbackProvider(organizationId, providerId);
      if (provider.protocol !== 'oidc') throw new IdentityError('not_found');
      const selector = stateSelector(call.exchange, 'oidc');
      const state = query.get('state');
      if (selector === undefined || state === null || !sameSelector(selector, state)) {
        throw new IdentityError('invalid_credentials');
      }
      const signedIn = await call.services.federation.completeOidc(call, provider, query, selector);
      respondSignedIn(call, signedIn, call.services.federation.successUrl);
    },
  }),
  route({
    method: 'POST',
    path: `${PROVIDER}/callback`,
    callers: { anonymous: true, user: true, restricted: true },
    signIn: 'saml',
    doc: {
      tag: 'federation',
      summary: 'SAML assertion consumer service (HTTP-POST binding)',
      description:
        'Form (`application/x-www-form-urlencoded`, ≤ 8 MiB) with exactly one `SAMLResponse` (≤ 4 MiB chars) and one `RelayState`, which must equal the `__Host-tessera_saml_state` cookie. The response is guarded before parsing, its signature verified per the registration policy, and only the signed bytes are read.',
      responses: { 303: SIGNED_IN },
      errors: ['not_found', 'request_invalid', 'invalid_credentials'],
    },
    handle: async (call) => {
      const { organizationId, providerId } = pathOf(call);
      clearStateCookies(call);
      const { samlResponse, relayState } = await samlCallbackForm(call.exchange);
      const provider = await call.services.federation.callbackProvider(organizationId, providerId);
      if (provider.protocol !== 'saml') throw new IdentityError('not_found');
      const selector = stateSelector(call.exchange, 'saml');
      if (selector === undefined || !sameSelector(selector, relayState)) throw new IdentityError('invalid_credentials');
      const signedIn = await call.services.federation.completeSaml(call, provider, samlResponse, selector);
      respondSignedIn(call, signedIn, call.services.federation.successUrl);
    },
  }),
  route({
    method: 'GET',
    path: `${PROVIDER}/saml/metadata`,
    callers: { anonymous: true, user: true, restricted: true },
    doc: {
      tag: 'federation',
      summary: 'SAML service-provider metadata',
      description:
        'The SP metadata of a SAML provider (entity id = this URL, ACS = the callback, HTTP-POST); 404 for an OIDC provider.',
      responses: {
        200: { description: 'SP metadata', contentType: 'application/samlmetadata+xml', body: { type: 'string' } },
      },
      errors: ['not_found', 'request_invalid'],
    },
    handle: async (call) => {
      const { organizationId, providerId } = pathOf(call);
      requireNoQueryOrBody(call.exchange);
      const xml = await call.services.federation.metadata(organizationId, providerId);
      call.exchange.respond({
        status: 200,
        body: xml,
        headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8' },
      });
    },
  }),
];
