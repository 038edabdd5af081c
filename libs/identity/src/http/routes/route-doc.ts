import type { IdentityErrorCode } from '../../errors/identity.errors.js';

/**
 * A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data.
 *
 * @example
 * const schema: JsonSchema = { type: 'object', required: ['ok'], properties: { ok: { const: true } } };
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** The API groups of the OpenAPI document (one per route family). */
export type IdentityRouteTag =
  'sessions' | 'passkeys' | 'recovery' | 'organizations' | 'invitations' | 'service-identities' | 'audit' | 'client';

/** A cookie a response sets or clears (identity-http §9.1). */
export interface CookieEffect {
  readonly cookie: 'session' | 'ceremony';
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
  /** Schema of the JSON body (a `$ref` to a shared component where one exists). */
  readonly body: JsonSchema;
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
  readonly tag: IdentityRouteTag;
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
