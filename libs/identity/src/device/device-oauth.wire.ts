import type { Exchange } from '@tessera/web';
import { OAuthError } from '../errors/oauth.errors.js';
import type { DevicePollOutcome } from '../store/identity-device.port.js';
import type { DeviceTokenFamilyRecord } from '../store/identity-device.records.js';
import type { StoreFailureCode, StoreResult } from '../store/identity-store.port.js';
import { formatTokenScope } from './device-scope.js';

/*
 * The OAuth wire of the device flow (identity-http §5): grant type, form parameters, response
 * bodies, and how inputs and store results become them.
 */

/** The `grant_type` of the RFC 8628 device-code exchange. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** Form parameters of `POST /oauth/device_authorization`. */
export const DEVICE_AUTHORIZATION_PARAMETERS = ['client_id', 'client_name', 'scope'] as const;
/** Form parameters of `POST /oauth/token`. */
export const TOKEN_PARAMETERS = ['grant_type', 'device_code', 'refresh_token', 'client_id'] as const;
/** Form parameters of `POST /oauth/revoke` (`token_type_hint` is read and ignored). */
export const REVOKE_PARAMETERS = ['token', 'token_type_hint', 'client_id'] as const;

/** The RFC 8628 §3.2 device authorization response (`identity-http.md` §5). */
export type DeviceAuthorizationResponse = {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly expires_in: number;
  readonly interval: number;
};

/** The RFC 6749 §5.1 token response (`identity-http.md` §5). */
export type DeviceTokenResponse = {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
};

/** An OAuth call: the exchange (audit request facts) and the request time. */
export interface DeviceOAuthCall {
  readonly exchange: Exchange;
  readonly at: Date;
}

/** A `client_id`: 1..200 visible ASCII characters. */
const CLIENT_ID = /^[\x21-\x7e]{1,200}$/;

/** The poll outcomes that refuse, as their RFC 6749 `error`. */
export const POLL_ERRORS: Readonly<Record<Exclude<DevicePollOutcome, 'authorized'>, OAuthError['code']>> = {
  authorization_pending: 'authorization_pending',
  slow_down: 'slow_down',
  access_denied: 'access_denied',
  expired_token: 'expired_token',
  invalid_grant: 'invalid_grant',
};

/** A required `client_id`, else `invalid_request`. */
export function requireClientId(value: string | undefined): string {
  if (value === undefined || !CLIENT_ID.test(value)) throw new OAuthError('invalid_request');
  return value;
}

/** A store refusal on the OAuth endpoints: outages are `temporarily_unavailable`. */
export function failure(code: StoreFailureCode): OAuthError {
  return new OAuthError(code === 'unavailable' ? 'temporarily_unavailable' : 'server_error', {
    cause: new Error(`store ${code}`),
  });
}

/** The value of a store result, or its failure as an {@link OAuthError}. */
export function unwrap<T>(result: StoreResult<T>): T {
  if (!result.ok) throw failure(result.code);
  return result.value;
}

/** The RFC 6749 §5.1 token response of a family's pair. */
export function tokenResponse(
  family: DeviceTokenFamilyRecord,
  accessToken: string,
  refreshToken: string,
  expiresIn: number,
): DeviceTokenResponse {
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    refresh_token: refreshToken,
    scope: formatTokenScope(family.capabilities),
  };
}
