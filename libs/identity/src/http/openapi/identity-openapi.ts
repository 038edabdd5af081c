import { IDENTITY_ERROR_CATALOGUE, type IdentityErrorCode } from '../../errors/identity.errors.js';
import { DEFAULT_REQUEST_ID_HEADER, DEFAULT_SESSION_COOKIE } from '../../config/identity-config.defaults.js';
import { ROUTE_TABLES } from '../identity.router.js';
import { isOAuthRouteDoc, type CookieEffect, type JsonSchema, type RouteDoc } from '../routes/route-doc.js';
import type { IdentityRoute, IdentityRouteTable } from '../routes/route-table.js';
import { componentSchemas } from './openapi-components.js';
import { oauthOperation } from './openapi-oauth.operation.js';
import { capitalise, commonHeaders, headerComponents } from './openapi-shared.js';
import { errorComponent, errorSchema } from './openapi-errors.js';
import { fieldRulesSchema } from './openapi-fields.js';

/** What the document may vary on: the names a deployment configures. */
export interface IdentityOpenApiOptions {
  /** @default '__Host-tessera_session' */
  readonly sessionCookieName?: string;
  /** @default 'X-Request-ID' */
  readonly requestIdHeader?: string;
  /** A `servers` entry (the deployment's `publicBaseUrl`); none by default (same origin). */
  readonly serverUrl?: string;
}

/** The OpenAPI document as plain JSON data. */
export type OpenApiDocument = { readonly openapi: '3.1.0' } & { readonly [key: string]: unknown };

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Codes of the stages that run before the route match (identity-http §2 stages 1–5). */
const SHARED_STAGES: readonly IdentityErrorCode[] = [
  'request_invalid',
  'invalid_credentials',
  'session_expired',
  'session_revoked',
  'csrf_invalid',
  'service_unavailable',
  'internal_error',
];
/** Stages every identity route goes through: authority/path checks, credentials, CSRF, faults. */
const EVERY_ROUTE: readonly IdentityErrorCode[] = [
  'request_invalid',
  'invalid_credentials',
  'csrf_invalid',
  'service_unavailable',
  'internal_error',
];

/**
 * The OpenAPI 3.1 document of every identity route, generated from the route tables (the rows'
 * method, path, caller classes, rate limit, body decoder and `doc`), so it cannot disagree with
 * what is mounted. Served at `GET /identity/v1/openapi.json` when the `openApi` option is on, and
 * written to `docs/openapi.json` by `scripts/write-openapi.mjs`.
 *
 * @example
 * const document = identityOpenApiDocument({ serverUrl: 'https://id.example.com' });
 */
export function identityOpenApiDocument(options: IdentityOpenApiOptions = {}): OpenApiDocument {
  return buildOpenApiDocument(ROUTE_TABLES, options);
}

/**
 * The document of `tables` (see {@link identityOpenApiDocument}).
 *
 * @example
 * buildOpenApiDocument([SESSION_ROUTES], {});
 */
export function buildOpenApiDocument(
  tables: readonly IdentityRouteTable[],
  options: IdentityOpenApiOptions,
): OpenApiDocument {
  const requestIdHeader = options.requestIdHeader ?? DEFAULT_REQUEST_ID_HEADER;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const row of tables.flat()) {
    const template = row.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const item = (paths[template] ??= {});
    const method = row.method.toLowerCase();
    if (item[method] !== undefined) throw new Error(`two identity routes declare ${row.method} ${row.path}`);
    item[method] = isOAuthRouteDoc(row.doc)
      ? oauthOperation(row, row.doc, requestIdHeader)
      : operation(row, requestIdHeader);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera identity API',
      version: '1.0.0',
      summary: 'Passkey-first identity: sessions, passkeys, recovery, organizations, invitations, service identities.',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl }] }),
    tags: TAGS,
    paths,
    components: {
      schemas: componentSchemas(),
      headers: headerComponents(requestIdHeader),
      responses: {
        ...errorResponses(requestIdHeader),
        SharedStageError: {
          ...errorResponse(SHARED_STAGES, commonHeaders(requestIdHeader)),
          description:
            'Answered on any identity path (a known one with another method included) by the stages before the route match: authority and path checks, credential resolution, CSRF (identity-http §2).',
        },
        UnknownPath: {
          description:
            'A path under `/identity/` that no identity route declares is not the identity router’s: it falls through to the host (identity-http §2 stage 6), whose miss is Nest’s standard 404 JSON. Only the request id header is guaranteed.',
          headers: { [requestIdHeader]: { $ref: '#/components/headers/RequestId' } },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['statusCode', 'message'],
                properties: {
                  statusCode: { const: 404 },
                  message: { type: 'string' },
                  error: { const: 'Not Found' },
                },
              },
            },
          },
        },
        MethodNotAllowed: {
          description:
            'Another method on a known identity path: the router answers 405 `method_not_allowed` with `Allow`.',
          headers: {
            Allow: { required: true, schema: { type: 'string' } },
            ...commonHeaders(requestIdHeader),
          },
          content: { 'application/json': { schema: errorSchema(['method_not_allowed']) } },
        },
        OAuthMethodNotAllowed: {
          description:
            'Another method on an OAuth endpoint: the router’s 405 body with `Allow` (RFC 6749 has no error code for it).',
          headers: {
            Allow: { required: true, schema: { type: 'string' } },
            ...commonHeaders(requestIdHeader),
            Pragma: { $ref: '#/components/headers/Pragma' },
          },
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['statusCode', 'message'],
                properties: { statusCode: { const: 405 }, message: { const: 'Method Not Allowed' } },
              },
            },
          },
        },
      },
      securitySchemes: {
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: options.sessionCookieName ?? DEFAULT_SESSION_COOKIE.name,
          description: 'The HttpOnly session cookie set by every session-creating route.',
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description:
            'With the session cookie on unsafe methods: the `csrfToken` of the session-created body, plus an `Origin` header equal to an allowed origin.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A device access token or a service credential (caller classes DEV and SVC).',
        },
      },
    },
  };
}

const DESCRIPTION = [
  'Every identity response carries `Cache-Control: no-store` and the request id header; JSON bodies are',
  '`application/json; charset=utf-8`. Errors use one envelope,',
  '`{"error":{"code","message","requestId","retryable"}}`, with a fixed message and retryability per code.',
  'Unsafe requests with a session cookie need `Origin` and `X-CSRF-Token`. Request bodies are strict JSON:',
  'unknown keys, duplicate keys, `null` for optional fields and wrong types are 400 `request_invalid`.',
  'A GET route also answers HEAD; another method on a known path is 405 `method_not_allowed` with `Allow`.',
].join(' ');

const TAGS = [
  { name: 'sessions', description: 'The caller, their sessions and logout.' },
  { name: 'passkeys', description: 'WebAuthn registration, sign-in, step-up and passkey management.' },
  { name: 'recovery', description: 'Recovery codes and administrative recovery tickets.' },
  { name: 'organizations', description: 'Organizations, memberships and the one-time bootstrap.' },
  { name: 'invitations', description: 'Invitations to an organization.' },
  { name: 'service-identities', description: 'Service identities and their bearer credentials.' },
  { name: 'audit', description: 'The organization audit stream.' },
  { name: 'client', description: 'Browser configuration and this document.' },
  { name: 'device', description: 'Confirming, denying and cancelling RFC 8628 device grants.' },
  {
    name: 'federation',
    description:
      'OIDC and SAML sign-in per organization (start, callbacks, SP metadata) and the providers an organization registers. Federation answers carry `Cache-Control: no-store`, `Pragma: no-cache`, `Referrer-Policy: no-referrer` and `X-Content-Type-Options: nosniff`.',
  },
  {
    name: 'scim',
    description:
      'SCIM connections of an organization: the bearer tokens and group-to-role rules its identity provider provisions with under `/scim/v2` (RFC 7644; that protocol describes itself at `/scim/v2/ServiceProviderConfig`, `/ResourceTypes` and `/Schemas`).',
  },
  {
    name: 'oauth',
    description:
      'RFC 8628 device authorization, the token endpoint and RFC 7009 revocation: form bodies, RFC 6749 error bodies `{error, error_description}`, `Cache-Control: no-store` and `Pragma: no-cache`.',
  },
];

function errorResponse(codes: readonly IdentityErrorCode[], common: Record<string, unknown>): Record<string, unknown> {
  const limited = codes.includes('rate_limited');
  return {
    description: codes.map((code) => `\`${code}\``).join(', '),
    headers: { ...common, ...(limited ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
    content: { 'application/json': { schema: errorSchema(codes) } },
  };
}

/** One shared response per error code, referenced where a status has a single code. */
function errorResponses(requestIdHeader: string): Record<string, unknown> {
  const codes = Object.keys(IDENTITY_ERROR_CATALOGUE) as IdentityErrorCode[];
  return Object.fromEntries(
    codes.map((code) => [errorComponent(code), errorResponse([code], commonHeaders(requestIdHeader))]),
  );
}

function operationId(row: IdentityRoute): string {
  const words = row.path
    .replace(/^\/identity\/v1\//, '')
    .split(/[/.-]/)
    .filter((word) => word !== '')
    .map((word) => (word.startsWith(':') ? `By${capitalise(word.slice(1))}` : capitalise(word)));
  return row.method.toLowerCase() + words.join('');
}

function callerClasses(row: IdentityRoute): string[] {
  const classes: string[] = [];
  if (row.callers.anonymous === true) classes.push('ANON');
  if (row.callers.user === true) classes.push('USER');
  if (row.callers.restricted === true) classes.push('RSTR');
  if (row.callers.device === true) classes.push('DEV');
  return classes;
}

function security(row: IdentityRoute): Record<string, string[]>[] {
  const requirements: Record<string, string[]>[] = [];
  if (row.callers.anonymous === true) requirements.push({});
  if (row.callers.user === true || row.callers.restricted === true) {
    requirements.push(UNSAFE.has(row.method) ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] });
  }
  if (row.callers.device === true) requirements.push({ bearer: [] });
  return requirements;
}

/** Every code the row can answer: the shared stages' (derived from the row) and its handler's. */
export function routeErrorCodes(row: IdentityRoute): IdentityErrorCode[] {
  const codes = new Set<IdentityErrorCode>(EVERY_ROUTE);
  const { anonymous, user, restricted } = row.callers;
  // Identity routes without ANON answer a failing session cookie (identity-http §2.1).
  if (anonymous !== true) for (const code of ['session_expired', 'session_revoked'] as const) codes.add(code);
  if (!(anonymous === true && user === true && restricted === true)) codes.add('authentication_required');
  if (row.rateLimit !== undefined) codes.add('rate_limited');
  if (row.available !== undefined) codes.add('not_found');
  for (const code of isOAuthRouteDoc(row.doc) ? [] : row.doc.errors) codes.add(code);
  return [...codes];
}

function requestBodySchema(row: IdentityRoute): JsonSchema | undefined {
  if (row.body === undefined) return undefined;
  const rules = (row.body as { fieldRules?: Parameters<typeof fieldRulesSchema>[0] }).fieldRules;
  if (rules !== undefined) return fieldRulesSchema(rules);
  const declared = (row.doc as RouteDoc & { requestBody?: JsonSchema }).requestBody;
  if (declared === undefined)
    throw new Error(`${row.method} ${row.path} has a custom body decoder but no doc.requestBody`);
  return declared;
}

function cookieHeader(effects: readonly CookieEffect[]): Record<string, unknown> {
  const text = effects
    .map(
      (e) =>
        `${e.effect === 'set' ? 'sets' : 'clears (Max-Age=0)'} the ${e.cookie} cookie${e.always ? '' : ' (when applicable)'}`,
    )
    .join('; ');
  return {
    'Set-Cookie': {
      required: effects.some((e) => e.always),
      description: `${text.charAt(0).toUpperCase()}${text.slice(1)}.`,
      schema: { type: 'string' },
    },
  };
}

function operation(row: IdentityRoute, requestIdHeader: string): Record<string, unknown> {
  const doc = row.doc as RouteDoc;
  const common = commonHeaders(requestIdHeader);
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.responses)) {
    const extra = Object.fromEntries(
      Object.entries(answer.headers ?? {}).map(([name, header]) => [
        name,
        { required: header.required, description: header.description, schema: { type: 'string' } },
      ]),
    );
    responses[status] = {
      description: answer.description,
      headers: { ...common, ...extra, ...(answer.cookies === undefined ? {} : cookieHeader(answer.cookies)) },
      ...(answer.body === undefined
        ? {}
        : {
            content: Object.fromEntries(
              [answer.contentType ?? 'application/json'].flat().map((type) => [type, { schema: answer.body }]),
            ),
          }),
    };
  }
  const byStatus = new Map<number, IdentityErrorCode[]>();
  for (const code of routeErrorCodes(row)) {
    const status = IDENTITY_ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] =
      codes.length === 1
        ? { $ref: `#/components/responses/${errorComponent(codes[0]!)}` }
        : errorResponse(codes, common);
  }
  const parameters = [
    ...[...row.path.matchAll(/:([A-Za-z]+)/g)].map(([, name]) =>
      name === 'providerId'
        ? {
            name,
            in: 'path',
            required: true,
            description: 'A provider id (else 400 `request_invalid`).',
            schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' },
          }
        : {
            name,
            in: 'path',
            required: true,
            description: 'Canonical UUIDv7 (else 400 `request_invalid`).',
            schema: { $ref: '#/components/schemas/Uuid' },
          },
    ),
    ...Object.entries(doc.query ?? {}).map(([name, query]) => ({
      name,
      in: 'query',
      required: false,
      description: query.description,
      schema: query.schema,
    })),
  ];
  const body = requestBodySchema(row);
  const notes = [
    `Callers: ${callerClasses(row).join(', ')}.`,
    ...(row.rateLimit === undefined ? [] : [`Rate limit: \`${row.rateLimit.policy}\` (per ${row.rateLimit.key}).`]),
    ...(row.available === undefined ? [] : ['Answers 404 `not_found` when the feature is not configured.']),
  ];
  return {
    operationId: operationId(row),
    tags: [doc.tag],
    summary: doc.summary,
    description: [doc.description, ...notes].filter((line) => line !== undefined).join('\n\n'),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined
      ? {}
      : { requestBody: { required: true, content: { 'application/json': { schema: body } } } }),
    responses,
    security: security(row),
    'x-tessera-callers': callerClasses(row),
    ...(row.rateLimit === undefined ? {} : { 'x-tessera-rate-limit': row.rateLimit.policy }),
  };
}
