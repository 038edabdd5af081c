import { buildSessionContext } from '../context/context-builder.js';
import type { IdentityCall } from '../context/identity-call.js';
import { IdentityError } from '../errors/identity.errors.js';
import { OAuthError } from '../errors/oauth.errors.js';
import type { OAuthFormFields } from '../http/oauth-form.js';
import { textOk } from '../http/request-fields.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { DeviceGrantRecord } from '../store/identity-device.records.js';
import type { StoredDigest } from '../store/identity-records.js';
import type { StoreFailureCode } from '../store/identity-store.port.js';
import {
  deviceCodeLookupDigests,
  issueDeviceCodes,
  parseDeviceCode,
  userCodeLookupDigests,
} from '../tokens/device-code.format.js';
import { deviceTokenLookupDigests, parseDeviceToken } from '../tokens/device-token.format.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { DeviceAudits } from './device.audits.js';
import { DeviceTokenGrants } from './device-token.grants.js';
import {
  DEVICE_CODE_GRANT_TYPE,
  requireClientId,
  failure,
  type DEVICE_AUTHORIZATION_PARAMETERS,
  type DeviceAuthorizationResponse,
  type DeviceOAuthCall,
  type DeviceTokenResponse,
  type REVOKE_PARAMETERS,
  type TOKEN_PARAMETERS,
} from './device-oauth.wire.js';
import { parseDeviceScope } from './device-scope.js';

const CLIENT_NAME_MAX_CHARS = 200;
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Fresh code digests are retried this many times on a (vanishingly rare) digest or id collision. */
const START_ATTEMPTS = 3;

/** Approve and deny need an inspection by the same session within this window (identity-http §4.1). */
const INSPECTION_WINDOW_MS = 10 * 60 * 1000;

/**
 * The RFC 8628 device flow and its token endpoints (`identity-http.md` §5, identity-model §5.5):
 * starting a device authorization, the device-code exchange, refresh-token rotation with the retry
 * window, and RFC 7009 revocation. Every failure is an {@link OAuthError}; store outages are
 * `temporarily_unavailable`. Codes and tokens are only ever stored as keyed digests; the retry
 * window's successor pair only sealed under the parent refresh token's secret.
 *
 * @example
 * const started = await services.device.startAuthorization(call, form);
 */
export class IdentityDevice {
  private readonly audits: DeviceAudits;
  private readonly grants: DeviceTokenGrants;

  constructor(private readonly kernel: IdentityKernel) {
    this.audits = new DeviceAudits(kernel.audit);
    this.grants = new DeviceTokenGrants(kernel, this.audits);
  }

  /**
   * `POST /oauth/device_authorization`: a `pending` grant for `client_id` and the requested
   * capabilities (all in the device allowlist).
   *
   * @example
   * await device.startAuthorization(call, { client_id: 'tessera-cli', scope: 'identity.profile' });
   */
  async startAuthorization(
    call: DeviceOAuthCall,
    form: OAuthFormFields<(typeof DEVICE_AUTHORIZATION_PARAMETERS)[number]>,
  ): Promise<DeviceAuthorizationResponse> {
    const clientId = requireClientId(form.client_id);
    const clientName = form.client_name ?? clientId;
    // Shown on the anti-phishing screen: no controls, and no bidirectional overrides that could
    // make one client's name read as another's.
    if (!textOk(clientName, 1, CLIENT_NAME_MAX_CHARS) || BIDI_CONTROL.test(clientName))
      throw new OAuthError('invalid_request');
    const capabilities = parseDeviceScope(form.scope, this.kernel.config.capabilities.device);
    if (capabilities === undefined) throw new OAuthError('invalid_scope');
    const { clock, random } = this.kernel.runtime;
    const lifetimes = this.kernel.config.lifetimes;
    for (let attempt = 1; ; attempt++) {
      const codes = issueDeviceCodes(random, this.kernel.keys.devicePepper);
      const id = generateUuidV7(clock, random);
      const created = await this.kernel.store.createDeviceGrant({
        grant: {
          id,
          deviceCodeDigest: codes.deviceCodeDigest,
          userCodeDigest: codes.userCodeDigest,
          clientId,
          clientName,
          requestedCapabilities: capabilities,
          intervalSeconds: lifetimes.devicePollingIntervalSeconds,
          expiresAt: new Date(call.at.getTime() + lifetimes.deviceGrantSeconds * 1000),
        },
        at: call.at,
        audit: this.audits.grant(call, id, 'device_authorization_started'),
      });
      if (created.ok) {
        return {
          device_code: codes.deviceCode,
          user_code: codes.userCode,
          verification_uri: `${this.kernel.config.publicBaseUrl}/device`,
          expires_in: lifetimes.deviceGrantSeconds,
          interval: created.value.intervalSeconds,
        };
      }
      const retryable = created.code === 'unique_constraint' || created.code === 'version_conflict';
      if (!retryable || attempt >= START_ATTEMPTS) throw failure(created.code);
    }
  }

  /**
   * `POST /oauth/token`: the device-code exchange (`urn:ietf:params:oauth:grant-type:device_code`)
   * or a refresh (`refresh_token`), for `client_id`.
   *
   * @example
   * await device.token(call, { grant_type: 'refresh_token', refresh_token, client_id: 'tessera-cli' });
   */
  async token(
    call: DeviceOAuthCall,
    form: OAuthFormFields<(typeof TOKEN_PARAMETERS)[number]>,
  ): Promise<DeviceTokenResponse> {
    if (form.grant_type === undefined) throw new OAuthError('invalid_request');
    const clientId = requireClientId(form.client_id);
    if (form.grant_type === DEVICE_CODE_GRANT_TYPE) {
      if (form.device_code === undefined) throw new OAuthError('invalid_request');
      return this.grants.exchangeDeviceCode(call, clientId, form.device_code);
    }
    if (form.grant_type === 'refresh_token') {
      if (form.refresh_token === undefined) throw new OAuthError('invalid_request');
      return this.grants.refresh(call, clientId, form.refresh_token);
    }
    throw new OAuthError('unsupported_grant_type');
  }

  /**
   * `POST /oauth/revoke` (RFC 7009): revokes the family of a refresh (or access) token of
   * `client_id`. Unknown, invalid or foreign tokens change nothing and are not reported.
   *
   * @example
   * await device.revoke(call, { token: refreshToken, client_id: 'tessera-cli' });
   */
  async revoke(call: DeviceOAuthCall, form: OAuthFormFields<(typeof REVOKE_PARAMETERS)[number]>): Promise<void> {
    if (form.token === undefined) throw new OAuthError('invalid_request');
    const clientId = requireClientId(form.client_id);
    const presented = parseDeviceToken(form.token);
    if (presented === undefined) return;
    for (const kind of ['refresh', 'access'] as const) {
      for (const tokenDigest of deviceTokenLookupDigests(kind, this.kernel.keys.devicePepper, presented)) {
        const reference = { selector: presented.selector, tokenDigest };
        const revoked = await this.kernel.store.revokeDeviceTokenFamily({
          family: kind === 'refresh' ? { refreshToken: reference } : { accessToken: reference },
          clientId,
          reason: 'client_revocation',
          at: call.at,
          audit: (family) => this.audits.family(call, family, 'device_token.revoked', 'client_revocation'),
        });
        if (revoked.ok) return;
        if (revoked.code !== 'not_found') throw failure(revoked.code);
      }
    }
  }

  /**
   * Route 35: shows the grant of `userCode` to the signed-in caller and records that this session
   * inspected it (approve/deny require it within 10 minutes). A `denied` or `authorized` grant
   * stays visible (not re-inspected); unknown, expired, consumed or cancelled → 404 `not_found`;
   * a malformed code → 401 `invalid_credentials`.
   *
   * @example
   * const grant = await device.inspect(caller, 'WDJB-MJHT');
   */
  async inspect(caller: IdentityCall, userCode: string): Promise<DeviceGrantRecord> {
    const sessionId = sessionOf(caller);
    for (const userCodeDigest of this.userCodeDigests(userCode)) {
      const inspected = await this.kernel.store.inspectDeviceGrant({ userCodeDigest, sessionId, at: caller.at });
      if (inspected.ok) return inspected.value;
      if (inspected.code === 'not_found') continue;
      if (inspected.code === 'invalid_transition') {
        const grant = await this.kernel.store.findDeviceGrantByUserCodeDigest(userCodeDigest);
        if (grant !== null && (grant.state === 'denied' || grant.state === 'authorized')) return grant;
      }
      throw identityFailure(inspected.code);
    }
    throw new IdentityError('not_found');
  }

  /**
   * Route 36: approves the grant of `userCode` for `organizationId` (explicit, no default) with
   * `capabilities` ⊆ requested ⊆ the caller's effective capabilities there, only from the session
   * that inspected it in the last 10 minutes. Any failed precondition → 404 `not_found`.
   *
   * @example
   * await device.approve(caller, { userCode, organizationId, capabilities: ['package.publish'] });
   */
  async approve(
    caller: IdentityCall,
    input: { userCode: string; organizationId: string; capabilities: readonly string[] },
  ): Promise<void> {
    const sessionId = sessionOf(caller);
    const digests = this.userCodeDigests(input.userCode);
    const user = await this.kernel.store.findUser(caller.context.principal.id).catch((cause: unknown) => {
      throw new IdentityError('service_unavailable', { cause });
    });
    if (user === null) throw new IdentityError('not_found');
    const context = await buildSessionContext(this.kernel.store, this.kernel.capabilityResolvers, {
      session: caller.context.session!,
      user,
      organizationId: input.organizationId,
      requestId: caller.context.requestId,
      requestTime: caller.at,
    });
    if (!input.capabilities.every((capability) => context.effectiveCapabilities.has(capability))) {
      throw new IdentityError('not_found');
    }
    for (const userCodeDigest of digests) {
      const authorized = await this.kernel.store.authorizeDeviceGrant({
        userCodeDigest,
        sessionId,
        inspectedSince: new Date(caller.at.getTime() - INSPECTION_WINDOW_MS),
        userId: user.id,
        organizationId: input.organizationId,
        approvedCapabilities: input.capabilities,
        at: caller.at,
        audit: this.audits.decision(caller, input.organizationId, 'device_authorization_approved'),
      });
      if (authorized.ok) return;
      if (authorized.code !== 'not_found') throw identityFailure(authorized.code);
    }
    throw new IdentityError('not_found');
  }

  /**
   * Route 37: denies the grant of `userCode`, under the same inspection rule as approval.
   *
   * @example
   * await device.deny(caller, 'WDJB-MJHT');
   */
  async deny(caller: IdentityCall, userCode: string): Promise<void> {
    const sessionId = sessionOf(caller);
    for (const userCodeDigest of this.userCodeDigests(userCode)) {
      const denied = await this.kernel.store.denyDeviceGrant({
        userCodeDigest,
        sessionId,
        inspectedSince: new Date(caller.at.getTime() - INSPECTION_WINDOW_MS),
        at: caller.at,
        audit: this.audits.decision(caller, null, 'device_authorization_denied'),
      });
      if (denied.ok) return;
      if (denied.code !== 'not_found') throw identityFailure(denied.code);
    }
    throw new IdentityError('not_found');
  }

  /**
   * Route 38: the device-code holder cancels its pending or authorized grant. A malformed code →
   * 401 `invalid_credentials`; unknown or no longer cancellable → 404 `not_found`.
   *
   * @example
   * await device.cancel(call, deviceCode);
   */
  async cancel(call: DeviceOAuthCall, deviceCode: string): Promise<void> {
    const bytes = parseDeviceCode(deviceCode);
    if (bytes === undefined) throw new IdentityError('invalid_credentials');
    for (const deviceCodeDigest of deviceCodeLookupDigests(this.kernel.keys.devicePepper, bytes)) {
      const cancelled = await this.kernel.store.cancelDeviceGrant({
        deviceCodeDigest,
        at: call.at,
        audit: this.audits.cancelled(call),
      });
      if (cancelled.ok) return;
      if (cancelled.code !== 'not_found') throw identityFailure(cancelled.code);
    }
    throw new IdentityError('not_found');
  }

  private userCodeDigests(userCode: string): readonly StoredDigest[] {
    const digests = userCodeLookupDigests(this.kernel.keys.devicePepper, userCode);
    if (digests === undefined) throw new IdentityError('invalid_credentials');
    return digests;
  }
}

function sessionOf(caller: IdentityCall): string {
  const session = caller.context.session;
  if (session === undefined) throw new IdentityError('authentication_required');
  return session.id;
}

/** A store refusal on routes 35–38: every precondition failure is 404, outages 503. */
function identityFailure(code: StoreFailureCode): IdentityError {
  if (code === 'unavailable' || code === 'internal') {
    return new IdentityError('service_unavailable', { cause: new Error(`store ${code}`) });
  }
  return new IdentityError('not_found');
}
