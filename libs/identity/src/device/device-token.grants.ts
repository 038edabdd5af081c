import { OAuthError } from '../errors/oauth.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { DeviceGrantRecord, NewDeviceTokenPair } from '../store/identity-device.records.js';
import type { StoredDigest } from '../store/identity-records.js';
import { deviceCodeLookupDigests, parseDeviceCode } from '../tokens/device-code.format.js';
import {
  deviceTokenDigest,
  deviceTokenMatches,
  issueDeviceToken,
  parseDeviceToken,
} from '../tokens/device-token.format.js';
import { openSuccessor, sealSuccessor } from '../tokens/refresh-successor.seal.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import type { DeviceAudits } from './device.audits.js';
import { delegationStillGranted } from './device-delegation.coverage.js';
import {
  failure,
  POLL_ERRORS,
  tokenResponse,
  unwrap,
  type DeviceOAuthCall,
  type DeviceTokenResponse,
} from './device-oauth.wire.js';
import { deviceAccessTokenExpiresAt, expiresInSeconds } from './device-scope.js';

/**
 * The two grants of `POST /oauth/token` (identity-model §5.5): the device-code exchange (poll, then
 * one compare-and-set claim that issues the family) and the refresh-token rotation with its retry
 * window (the successor pair sealed under the parent's secret). Every failure is an
 * {@link OAuthError}. Used by {@link IdentityDevice}, which dispatches on `grant_type`.
 *
 * @example
 * const tokens = await new DeviceTokenGrants(kernel, audits).refresh(call, 'tessera-cli', refreshToken);
 */
export class DeviceTokenGrants {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly audits: DeviceAudits,
  ) {}

  /** The device-code grant: one poll, and the claim of an approved grant still covered by its role and grants. */
  async exchangeDeviceCode(call: DeviceOAuthCall, clientId: string, deviceCode: string) {
    const bytes = parseDeviceCode(deviceCode);
    if (bytes === undefined) throw new OAuthError('invalid_grant');
    for (const deviceCodeDigest of deviceCodeLookupDigests(this.kernel.keys.devicePepper, bytes)) {
      const polled = await this.kernel.store.recordDeviceGrantPoll({
        deviceCodeDigest,
        clientId,
        at: call.at,
        audits: ({ outcome, grant }) => [this.audits.grant(call, grant.id, `device_poll_${outcome}`)],
      });
      if (!polled.ok && polled.code === 'not_found') continue;
      const { outcome, grant } = unwrap(polled);
      if (outcome !== 'authorized') throw new OAuthError(POLL_ERRORS[outcome]);
      await this.requireStillGranted(call, grant, deviceCodeDigest);
      return this.claim(call, clientId, deviceCodeDigest);
    }
    throw new OAuthError('invalid_grant');
  }

  /**
   * Re-evaluates the role and the application grants behind an approved grant before its claim; a
   * delegation they no longer cover cancels the grant (`membership_authorization_changed`) and is
   * `invalid_grant`, like a membership that changed.
   */
  private async requireStillGranted(call: DeviceOAuthCall, grant: DeviceGrantRecord, deviceCodeDigest: StoredDigest) {
    const { store, capabilityResolvers } = this.kernel;
    const granted = await delegationStillGranted(store, capabilityResolvers, grant.authorization!).catch(
      (cause: unknown) => {
        throw new OAuthError('temporarily_unavailable', { cause });
      },
    );
    if (granted) return;
    const cancelled = await store.cancelDeviceGrant({
      deviceCodeDigest,
      at: call.at,
      audit: this.audits.grant(call, grant.id, 'membership_authorization_changed'),
    });
    // Cancelled now or settled meanwhile by another poll: either way this exchange gets nothing.
    if (!cancelled.ok && (cancelled.code === 'unavailable' || cancelled.code === 'internal'))
      throw failure(cancelled.code);
    throw new OAuthError('invalid_grant');
  }

  private async claim(call: DeviceOAuthCall, clientId: string, deviceCodeDigest: StoredDigest) {
    const { random } = this.kernel.runtime;
    const lifetimes = this.kernel.config.lifetimes;
    const familyExpiresAt = new Date(call.at.getTime() + lifetimes.deviceTokenFamilySeconds * 1000);
    const pair = this.issuePair(call.at, familyExpiresAt);
    const claimed = await this.kernel.store.claimDeviceGrant({
      deviceCodeDigest,
      clientId,
      familyId: generateUuidV7(this.kernel.runtime.clock, random),
      familyExpiresAt,
      tokens: pair.records,
      at: call.at,
      audits: (event) =>
        event.kind === 'issued'
          ? [this.audits.family(call, event.family, 'device_token.issued', null)]
          : [this.audits.grant(call, event.grant.id, 'membership_authorization_changed')],
    });
    if (!claimed.ok && (claimed.code === 'invalid_transition' || claimed.code === 'not_found')) {
      throw new OAuthError('invalid_grant');
    }
    const { family, tokens } = unwrap(claimed);
    return tokenResponse(
      family,
      pair.accessToken,
      pair.refreshToken,
      expiresInSeconds(tokens.accessToken.expiresAt, call.at),
    );
  }

  /** The refresh-token grant: one rotation, or the identical successor pair inside the retry window. */
  async refresh(call: DeviceOAuthCall, clientId: string, refreshToken: string): Promise<DeviceTokenResponse> {
    const presented = parseDeviceToken(refreshToken);
    if (presented === undefined) throw new OAuthError('invalid_grant');
    const stored = await this.kernel.store.findDeviceRefreshTokenBySelector(presented.selector).catch((cause) => {
      throw new OAuthError('temporarily_unavailable', { cause });
    });
    if (stored === null || stored.tokenDigest.keyVersion === null) throw new OAuthError('invalid_grant');
    const ring = this.kernel.keys.devicePepper;
    const pepper = ring.byVersion(stored.tokenDigest.keyVersion);
    // Constant-time here; the store's command then matches the same digest under its lock.
    if (pepper === undefined || !deviceTokenMatches('refresh', ring, presented, stored.tokenDigest))
      throw new OAuthError('invalid_grant');
    const tokenDigest = deviceTokenDigest('refresh', pepper, presented);
    // A refresh token expires with its family, so its own expiry bounds the successor's.
    const pair = this.issuePair(call.at, stored.expiresAt);
    const context = { familyId: stored.familyId, parentTokenId: presented.selector, clientId };
    const retrySeconds = this.kernel.config.lifetimes.refreshRetrySeconds;
    const sealed =
      retrySeconds === 0
        ? null
        : Buffer.from(
            sealSuccessor(this.kernel.runtime.random, presented.secret, context, {
              accessToken: pair.accessToken,
              refreshToken: pair.refreshToken,
            }),
            'ascii',
          );
    const rotated = await this.kernel.store.rotateDeviceRefreshToken({
      selector: presented.selector,
      tokenDigest,
      clientId,
      successor: pair.records,
      sealedSuccessor: sealed,
      retryUntil: sealed === null ? null : new Date(call.at.getTime() + retrySeconds * 1000),
      at: call.at,
      audits: (event) => [this.audits.refresh(call, event.kind, event.family)],
    });
    if (!rotated.ok && ['invalid_transition', 'not_found', 'replay_detected'].includes(rotated.code)) {
      throw new OAuthError('invalid_grant');
    }
    const outcome = unwrap(rotated);
    const expiresIn = expiresInSeconds(outcome.successor.accessToken.expiresAt, call.at);
    if (outcome.kind === 'rotated')
      return tokenResponse(outcome.family, pair.accessToken, pair.refreshToken, expiresIn);
    const opened = openSuccessor(presented.secret, context, Buffer.from(outcome.sealedSuccessor).toString('ascii'));
    if (
      opened === undefined ||
      opened.accessTokenId !== outcome.successor.accessToken.id ||
      opened.refreshTokenId !== outcome.successor.refreshToken.id
    ) {
      throw new OAuthError('invalid_grant');
    }
    return tokenResponse(outcome.family, opened.accessToken, opened.refreshToken, expiresIn);
  }

  /** A new access + refresh token pair: the access token lives its lifetime within the family's. */
  private issuePair(at: Date, familyExpiresAt: Date) {
    const runtime = this.kernel.runtime;
    const ring = this.kernel.keys.devicePepper;
    const access = issueDeviceToken('access', runtime, ring);
    const refresh = issueDeviceToken('refresh', runtime, ring);
    const lifetime = this.kernel.config.lifetimes.deviceAccessTokenSeconds;
    const records: NewDeviceTokenPair = {
      accessToken: {
        id: access.id,
        tokenDigest: access.tokenDigest,
        expiresAt: deviceAccessTokenExpiresAt(at, lifetime, familyExpiresAt),
      },
      refreshToken: { id: refresh.id, tokenDigest: refresh.tokenDigest, expiresAt: familyExpiresAt },
    };
    return { accessToken: access.token, refreshToken: refresh.token, records };
  }
}
