import type { Exchange } from '@tessera/web';
import {
  DEVICE_AUTHORIZATION_PARAMETERS,
  DEVICE_CODE_GRANT_TYPE,
  REVOKE_PARAMETERS,
  TOKEN_PARAMETERS,
} from '../../device/device-oauth.wire.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { OAuthError } from '../../errors/oauth.errors.js';
import { rateLimitPeer } from '../../tokens/client-address.format.js';
import { readOAuthForm } from '../oauth-form.js';
import { markSignIn } from '../../telemetry/identity-telemetry.js';
import { respondOAuthEmpty, respondOAuthJson } from '../oauth-response.js';
import { getClientAddress } from '../pipeline-stages.js';
import { consumeRateLimit } from '../route-kit.js';
import { route, type IdentityRouteTable } from './route-table.js';

/** OAuth endpoints admit any caller that is not a bearer: they authenticate by code or token. */
const PUBLIC_CLIENT = { anonymous: true, user: true, restricted: true } as const;
const CLIENT_ID = {
  description: 'The public client’s id: 1..200 visible ASCII characters.',
  required: true,
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' },
} as const;
const TOKEN_SCHEMA = { type: 'string', pattern: '^[0-9a-f-]{36}\\.[A-Za-z0-9_-]{43}$' };

/**
 * The OAuth endpoints of the RFC 8628 device flow (identity-http §5): device authorization, the
 * token endpoint (device-code exchange and refresh with the retry window) and RFC 7009
 * revocation. Form bodies only; every answer (errors in the RFC 6749 body) is `no-store`.
 */
export const OAUTH_ROUTES: IdentityRouteTable = [
  route({
    method: 'POST',
    path: '/oauth/device_authorization',
    callers: PUBLIC_CLIENT,
    doc: {
      tag: 'oauth',
      summary: 'Start a device authorization (RFC 8628 §3.1)',
      description:
        'The user enters `user_code` at `verification_uri` (no `verification_uri_complete`); the client polls `/oauth/token` every `interval` seconds. Not rate limited.',
      form: {
        client_id: CLIENT_ID,
        client_name: {
          description:
            'Shown to the approving user; 1..200 characters without control or bidirectional-override characters (else `invalid_request`), default `client_id`.',
          required: false,
          schema: { type: 'string', minLength: 1, maxLength: 200 },
        },
        scope: {
          description: 'Space-separated, 1..64 distinct lower-case capabilities of the device allowlist.',
          required: true,
          schema: { type: 'string', minLength: 1, maxLength: 4096 },
        },
      },
      responses: {
        200: { description: 'The grant was started', body: { $ref: '#/components/schemas/DeviceAuthorization' } },
      },
      oauthErrors: ['invalid_scope'],
    },
    handle: async ({ exchange, kernel, services, at }) => {
      const form = await readOAuthForm(exchange, kernel.config.limits.formBodyBytes, DEVICE_AUTHORIZATION_PARAMETERS);
      respondOAuthJson(exchange, await services.device.startAuthorization({ exchange, at }, form));
    },
  }),
  route({
    method: 'POST',
    path: '/oauth/token',
    callers: PUBLIC_CLIENT,
    doc: {
      tag: 'oauth',
      summary: 'Exchange a device code or refresh a token pair',
      description: [
        `\`grant_type\` \`${DEVICE_CODE_GRANT_TYPE}\` with \`device_code\` (RFC 8628 §3.4), or \`refresh_token\` with \`refresh_token\` (rotating: the presented token is spent).`,
        'Within `refreshRetrySeconds` of a rotation, presenting the same parent again returns the identical successor pair while that successor is unused; any other reuse of a rotated token revokes the whole family (`invalid_grant`).',
        'Rate limit: `oauth_token` (per peer and `client_id`), counted before anything is checked.',
      ].join(' '),
      form: {
        grant_type: {
          description: `\`${DEVICE_CODE_GRANT_TYPE}\` or \`refresh_token\`.`,
          required: true,
          schema: { type: 'string' },
        },
        device_code: { description: 'With the device-code grant.', required: false, schema: { type: 'string' } },
        refresh_token: { description: 'With the refresh grant.', required: false, schema: TOKEN_SCHEMA },
        client_id: CLIENT_ID,
      },
      responses: { 200: { description: 'A token pair', body: { $ref: '#/components/schemas/DeviceTokenResponse' } } },
      oauthErrors: [
        'unsupported_grant_type',
        'invalid_grant',
        'authorization_pending',
        'slow_down',
        'access_denied',
        'expired_token',
        'rate_limited',
      ],
      rateLimit: 'oauth_token',
    },
    handle: async ({ exchange, kernel, services, at }) => {
      // The limiter counts every request before anything is checked, a malformed form included.
      const form = await readOAuthForm(exchange, kernel.config.limits.formBodyBytes, TOKEN_PARAMETERS).catch(
        (error: unknown) => (error instanceof OAuthError ? error : Promise.reject(error)),
      );
      const clientId = form instanceof OAuthError ? undefined : form.client_id;
      if (!(form instanceof OAuthError) && form.grant_type === DEVICE_CODE_GRANT_TYPE)
        markSignIn(exchange, 'device_token');
      await limitTokenRequests(kernel, exchange, at, clientId);
      if (form instanceof OAuthError) throw form;
      respondOAuthJson(exchange, await services.device.token({ exchange, at }, form));
    },
  }),
  route({
    method: 'POST',
    path: '/oauth/revoke',
    callers: PUBLIC_CLIENT,
    rateLimit: { policy: 'device_code_holder', key: 'peer' },
    doc: {
      tag: 'oauth',
      summary: 'Revoke a token family (RFC 7009)',
      description:
        'Revokes the family of the presented refresh (or access) token of `client_id`. Unknown, invalid or foreign tokens are answered the same way and change nothing.',
      form: {
        token: {
          description: 'The refresh token (an access token also works).',
          required: true,
          schema: { type: 'string' },
        },
        token_type_hint: { description: 'Ignored.', required: false, schema: { type: 'string' } },
        client_id: CLIENT_ID,
      },
      responses: { 200: { description: 'Revoked, or nothing to revoke (empty body)' } },
      oauthErrors: ['rate_limited'],
      rateLimit: 'device_code_holder',
    },
    handle: async ({ exchange, kernel, services, at }) => {
      const form = await readOAuthForm(exchange, kernel.config.limits.formBodyBytes, REVOKE_PARAMETERS);
      await services.device.revoke({ exchange, at }, form);
      respondOAuthEmpty(exchange);
    },
  }),
];

/** `oauth_token`: one bucket per peer and `client_id` (identity-http §10). */
function limitTokenRequests(kernel: IdentityKernel, exchange: Exchange, at: Date, clientId: string | undefined) {
  const subject = `${rateLimitPeer(getClientAddress(exchange))}\n${clientId ?? ''}`;
  return consumeRateLimit(kernel, 'oauth_token', subject, at);
}
