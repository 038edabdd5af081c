import { OAUTH_ERROR_CATALOGUE, type OAuthErrorCode } from '../../errors/oauth.errors.js';
import type { OAuthRouteDoc } from '../routes/route-doc.js';
import type { IdentityRoute } from '../routes/route-table.js';
import { oauthErrorSchema } from './openapi-errors.js';
import { capitalise, commonHeaders } from './openapi-shared.js';

/** Codes every OAuth endpoint can answer: a malformed form, an outage, a fault (identity-http §5). */
const OAUTH_SHARED: readonly OAuthErrorCode[] = ['invalid_request', 'temporarily_unavailable', 'server_error'];

/**
 * The operation of an OAuth endpoint: a form body, RFC 6749 error bodies, `no-store` + `no-cache`.
 *
 * @example
 * const op = oauthOperation(row, row.doc as OAuthRouteDoc, 'X-Request-ID');
 */
export function oauthOperation(
  row: IdentityRoute,
  doc: OAuthRouteDoc,
  requestIdHeader: string,
): Record<string, unknown> {
  const common = {
    ...commonHeaders(requestIdHeader),
    Pragma: { $ref: '#/components/headers/Pragma' },
  };
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.responses)) {
    responses[status] = {
      description: answer.description,
      headers: common,
      ...(answer.body === undefined ? {} : { content: { 'application/json': { schema: answer.body } } }),
    };
  }
  const byStatus = new Map<number, OAuthErrorCode[]>();
  for (const code of new Set([...OAUTH_SHARED, ...doc.oauthErrors])) {
    const status = OAUTH_ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      headers: {
        ...common,
        ...(codes.includes('rate_limited') ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: { 'application/json': { schema: oauthErrorSchema(codes) } },
    };
  }
  const form = Object.entries(doc.form);
  const words = row.path.replace(/^\/oauth\//, '').split(/[_/]/);
  return {
    operationId: `oauth${words.map(capitalise).join('')}`,
    tags: [doc.tag],
    summary: doc.summary,
    description: [
      doc.description,
      'Callers: ANON (public client).',
      ...(doc.rateLimit === undefined ? [] : [`Rate limit: \`${doc.rateLimit}\`.`]),
    ]
      .filter((line) => line !== undefined)
      .join('\n\n'),
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: form.filter(([, field]) => field.required).map(([name]) => name),
            properties: Object.fromEntries(
              form.map(([name, field]) => [
                name,
                { ...(field.schema ?? { type: 'string' }), description: field.description },
              ]),
            ),
          },
        },
      },
    },
    responses,
    security: [{}],
    'x-tessera-callers': ['ANON'],
    ...(doc.rateLimit === undefined ? {} : { 'x-tessera-rate-limit': doc.rateLimit }),
  };
}
