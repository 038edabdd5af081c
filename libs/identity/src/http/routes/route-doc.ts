import type { RateLimitPolicyName } from '../../config/identity.config.js';
import type { IdentityErrorCode } from '../../errors/identity.errors.js';
import type { OAuthErrorCode } from '../../errors/oauth.errors.js';

/**
 * A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data.
 *
 * @example
 * const schema: JsonSchema = { type: 'object', required: ['ok'], properties: { ok: { const: true } } };
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The API groups of the OpenAPI document (one per route family). */
export type IdentityRouteTag =
  | 'sessions'
  | 'passkeys'
  | 'recovery'
  | 'organizations'
  | 'invitations'
  | 'service-identities'
  | 'audit'
  | 'client'
  | 'device'
  | 'federation'
  | 'scim'
  | 'oauth';

/** A cookie a response sets or clears (identity-http §9.1). */
export interface CookieEffect {
  readonly cookie: 'session' | 'ceremony' | 'oidc_state' | 'saml_state' | 'federation_csrf';
  readonly effect: 'set' | 'clear';
  /** `false` when only some answers of that status carry it (e.g. only when the session was current). */
  readonly always: boolean;
}

/**
 * One successful answer of a route: what its JSON body holds and which cookies it touches.
 *
 * @example
 * { description: 'The passkey, renamed', body: ref('Passkey') }
 */
export interface RouteResponseDoc {
  readonly description: string;
  /** Schema of the body (a `$ref` to a shared component where one exists); absent for a redirect. */
  readonly body?: JsonSchema;
  /** The body's media type, or the ones it may have (same schema). @default 'application/json' */
  readonly contentType?: string | readonly string[];
  /** Headers the answer carries besides the common ones (e.g. `Location` of a redirect). */
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly required: boolean }>>;
  readonly cookies?: readonly CookieEffect[];
}

/**
 * What the OpenAPI document says about one route (identity-http §4): every row must have one,
 * so a route cannot be added without being documented. Errors of the shared stages (credential
 * resolution, CSRF, the caller gate, rate limits, path ids, the body decoder, `available`) are
 * derived from the row itself; `errors` lists the ones the handler adds (stage 10/11).
 *
 * @example
 * doc: {
 *   tag: 'passkeys',
 *   summary: 'Rename one of the caller’s passkeys',
 *   responses: { 200: { description: 'The renamed passkey', body: ref('Passkey') } },
 *   errors: ['not_found', 'conflict'],
 * }
 */
export interface RouteDoc {
  readonly tag: Exclude<IdentityRouteTag, 'oauth'>;
  readonly summary: string;
  readonly description?: string;
  /** Successful statuses and their bodies. */
  readonly responses: Readonly<Record<number, RouteResponseDoc>>;
  /** Codes the handler itself answers (authorization, tenancy, races, ceremony checks). */
  readonly errors: readonly IdentityErrorCode[];
  /** Query parameters the route defines (any other is 400 there). */
  readonly query?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>>;
}

/**
 * A row whose body is decoded by a custom decoder declares the body's schema itself (a
 * {@link fields} decoder carries its own).
 */
export interface CustomBodyRouteDoc extends RouteDoc {
  readonly requestBody: JsonSchema;
}

/**
 * What the OpenAPI document says about one OAuth endpoint (identity-http §5): a form body
 * (`application/x-www-form-urlencoded`), RFC 6749 error bodies (`{error, error_description}`) and
 * `Cache-Control: no-store` + `Pragma: no-cache` on every answer. Errors of the shared stages
 * (`invalid_request`, `temporarily_unavailable`, `server_error`) are added by the generator.
 *
 * @example
 * doc: {
 *   tag: 'oauth',
 *   summary: 'Revoke a token family (RFC 7009)',
 *   form: { token: { description: 'The refresh token', required: true } },
 *   responses: { 200: { description: 'Revoked, or nothing to revoke' } },
 *   oauthErrors: ['rate_limited'],
 *   rateLimit: 'device_code_holder',
 * }
 */
export interface OAuthRouteDoc {
  readonly tag: 'oauth';
  readonly summary: string;
  readonly description?: string;
  /** The form parameters the endpoint reads (string values; others are ignored). */
  readonly form: Readonly<
    Record<string, { readonly description: string; readonly required: boolean; readonly schema?: JsonSchema }>
  >;
  /** Successful statuses; a response without `body` has an empty body. */
  readonly responses: Readonly<Record<number, { readonly description: string; readonly body?: JsonSchema }>>;
  /** OAuth error codes the endpoint answers beyond the shared ones. */
  readonly oauthErrors: readonly OAuthErrorCode[];
  /** The limiter policy the endpoint counts in (its handler keys it, e.g. peer + `client_id`). */
  readonly rateLimit?: RateLimitPolicyName;
}

/**
 * `true` for the documentation of an OAuth endpoint.
 *
 * @example
 * if (isOAuthRouteDoc(row.doc)) return oauthOperation(row.doc);
 */
export function isOAuthRouteDoc(doc: RouteDoc | OAuthRouteDoc): doc is OAuthRouteDoc {
  return doc.tag === 'oauth';
}

/**
 * A `$ref` to a shared component schema of the OpenAPI document.
 *
 * @example
 * ref('Passkey'); // { $ref: '#/components/schemas/Passkey' }
 */
export function ref(component: string): JsonSchema {
  return { $ref: `#/components/schemas/${component}` };
}

/**
 * An array of `items`.
 *
 * @example
 * arrayOf(ref('Session'));
 */
export function arrayOf(items: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  return { type: 'array', items, ...extra };
}

/** The session cookie is set (a session was issued or rotated). */
export const SETS_SESSION_COOKIE: CookieEffect = { cookie: 'session', effect: 'set', always: true };
/** The session cookie is cleared. */
export const CLEARS_SESSION_COOKIE: CookieEffect = { cookie: 'session', effect: 'clear', always: true };
/** A WebAuthn start sets the ceremony cookie that binds it to its finish. */
export const SETS_CEREMONY_COOKIE: CookieEffect = { cookie: 'ceremony', effect: 'set', always: true };
/** Every WebAuthn finish clears the ceremony cookie, whatever the outcome. */
export const CLEARS_CEREMONY_COOKIE: CookieEffect = { cookie: 'ceremony', effect: 'clear', always: true };
