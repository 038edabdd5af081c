import type {
  AuditEventInput,
  DeviceGrantRecord,
  DeviceTokenFamilyRecord,
  DeviceTokenPair,
  NewDeviceTokenPair,
  OrganizationRole,
  StoredDigest,
} from '@tessera/identity';
import { randomBytes } from 'node:crypto';
import { testDigest, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const DAY = 24 * 60 * MINUTE;
export const CLIENT_ID = 'tessera-cli';
export const REQUESTED = ['package.publish', 'identity.profile', 'identity.organizations'];

/** A member who can approve: user, one active session, membership of the world's organization. */
export interface DeviceApprover {
  readonly userId: string;
  readonly sessionId: string;
  readonly membershipId: string;
}

/** A grant as created, with the digests its codes are known by. */
export interface StartedGrant {
  readonly grant: DeviceGrantRecord;
  readonly deviceCodeDigest: StoredDigest;
  readonly userCodeDigest: StoredDigest;
}

/** A claimed grant: its family and the issued pair (with the digests a client would present). */
export interface ClaimedFamily extends StartedGrant {
  readonly approver: DeviceApprover;
  readonly family: DeviceTokenFamilyRecord;
  readonly issued: NewDeviceTokenPair;
  readonly stored: DeviceTokenPair;
}

/**
 * Builders for the device conformance cases: grants started, inspected, approved and claimed
 * through the port itself (the world's frozen clock drives every instant).
 *
 * @example
 * const device = new DeviceFixture(world);
 * const { family, issued } = await device.claimed();
 */
export class DeviceFixture {
  constructor(private readonly world: ConformanceWorld) {}

  /** An audit on the grant or family target. */
  audit(action: string, id: string, reasonCode: string | null = null): AuditEventInput {
    return { ...this.world.audit(action, { type: 'system' }, { type: 'device_grant', id }), reasonCode };
  }

  /** A fresh approver (the clock moves one minute, as `userWithSessions` does). */
  async approver(role: OrganizationRole = 'publisher'): Promise<DeviceApprover> {
    const { userId, sessions } = await this.world.userWithSessions(1);
    const membershipId = await this.world.rows.membership(this.world.organizationId, userId, { role });
    return { userId, sessionId: sessions[0]!.id, membershipId };
  }

  /** A pending grant created at the current instant (10 minutes to live). */
  async started(over: { id?: string; clientId?: string; at?: Date; ttlMs?: number } = {}): Promise<StartedGrant> {
    const { deviceCodeDigest, userCodeDigest, result } = this.start(over);
    return { grant: unwrap(await result), deviceCodeDigest, userCodeDigest };
  }

  /** The raw `createDeviceGrant` of a new grant with fresh code digests. */
  start(over: { id?: string; clientId?: string; at?: Date; ttlMs?: number } = {}) {
    const at = over.at ?? this.world.clock.now();
    const deviceCodeDigest = testDigest();
    const userCodeDigest = testDigest();
    const id = over.id ?? testUuidV7(at);
    return {
      deviceCodeDigest,
      userCodeDigest,
      result: this.world.store.createDeviceGrant({
        grant: {
          id,
          deviceCodeDigest,
          userCodeDigest,
          clientId: over.clientId ?? CLIENT_ID,
          clientName: 'Tessera CLI',
          requestedCapabilities: REQUESTED,
          intervalSeconds: 5,
          expiresAt: new Date(at.getTime() + (over.ttlMs ?? 10 * MINUTE)),
        },
        at,
        audit: this.audit('device_grant.changed', id, 'device_authorization_started'),
      }),
    };
  }

  inspect(started: StartedGrant, approver: DeviceApprover, at = this.world.clock.now()) {
    return this.world.store.inspectDeviceGrant({
      userCodeDigest: started.userCodeDigest,
      sessionId: approver.sessionId,
      at,
    });
  }

  authorize(
    started: StartedGrant,
    approver: DeviceApprover,
    over: { sessionId?: string; scopes?: readonly string[]; organizationId?: string; at?: Date } = {},
  ) {
    const at = over.at ?? this.world.clock.now();
    return this.world.store.authorizeDeviceGrant({
      userCodeDigest: started.userCodeDigest,
      sessionId: over.sessionId ?? approver.sessionId,
      inspectedSince: new Date(at.getTime() - 10 * MINUTE),
      userId: approver.userId,
      organizationId: over.organizationId ?? this.world.organizationId,
      approvedCapabilities: over.scopes ?? ['package.publish', 'identity.profile'],
      at,
      audit: this.audit('device_grant.changed', started.grant.id, 'device_authorization_approved'),
    });
  }

  /** A pending grant of a new approver, inspected and approved. */
  async authorized(role: OrganizationRole = 'publisher'): Promise<StartedGrant & { approver: DeviceApprover }> {
    const approver = await this.approver(role);
    const started = await this.started();
    unwrap(await this.inspect(started, approver));
    unwrap(await this.authorize(started, approver));
    return { ...started, approver };
  }

  /** A new access + refresh pair issued at `at`, living until `familyExpiresAt` at the latest. */
  pair(at: Date, familyExpiresAt: Date): NewDeviceTokenPair {
    const accessExpiry = Math.min(at.getTime() + 15 * MINUTE, familyExpiresAt.getTime());
    return {
      accessToken: { id: testUuidV7(at), tokenDigest: testDigest(), expiresAt: new Date(accessExpiry) },
      refreshToken: { id: testUuidV7(at), tokenDigest: testDigest(), expiresAt: familyExpiresAt },
    };
  }

  claim(started: StartedGrant, over: { clientId?: string; at?: Date; issued?: NewDeviceTokenPair } = {}) {
    const at = over.at ?? this.world.clock.now();
    const familyExpiresAt = new Date(at.getTime() + 30 * DAY);
    const familyId = testUuidV7(at);
    const issued = over.issued ?? this.pair(at, familyExpiresAt);
    return {
      issued,
      result: this.world.store.claimDeviceGrant({
        deviceCodeDigest: started.deviceCodeDigest,
        clientId: over.clientId ?? CLIENT_ID,
        familyId,
        familyExpiresAt,
        tokens: issued,
        at,
        audits: (event) => [
          this.audit(
            event.kind === 'issued' ? 'device_token.issued' : 'device_grant.changed',
            started.grant.id,
            event.kind === 'issued' ? null : 'membership_authorization_changed',
          ),
        ],
      }),
    };
  }

  /** An authorized grant claimed: an active family with its first pair. */
  async claimed(role: OrganizationRole = 'publisher'): Promise<ClaimedFamily> {
    const started = await this.authorized(role);
    const { issued, result } = this.claim(started);
    const { family, tokens } = unwrap(await result);
    return { ...started, family, issued, stored: tokens };
  }

  /** Opaque bytes standing in for the domain's sealed successor pair. */
  sealed(): Uint8Array {
    return new Uint8Array(randomBytes(96));
  }

  /** Presents `refresh` (its selector and digest) for rotation at `at` with a window of `windowMs`. */
  refresh(
    family: DeviceTokenFamilyRecord,
    refresh: { id: string; tokenDigest: StoredDigest },
    over: { at?: Date; windowMs?: number | null; clientId?: string; sealed?: Uint8Array } = {},
  ) {
    const at = over.at ?? this.world.clock.now();
    const windowMs = over.windowMs === undefined ? 30 * SECOND : over.windowMs;
    const successor = this.pair(at, family.expiresAt);
    const sealed = windowMs === null ? null : (over.sealed ?? this.sealed());
    return {
      successor,
      sealed,
      result: this.world.store.rotateDeviceRefreshToken({
        selector: refresh.id,
        tokenDigest: refresh.tokenDigest,
        clientId: over.clientId ?? CLIENT_ID,
        successor,
        sealedSuccessor: sealed,
        retryUntil: windowMs === null ? null : new Date(at.getTime() + windowMs),
        at,
        audits: (event) =>
          event.kind === 'retried'
            ? []
            : [
                {
                  ...this.world.audit(
                    'device_token.' + (event.kind === 'membership_changed' ? 'revoked' : event.kind),
                    {
                      type: 'system',
                    },
                  ),
                  organizationId: event.family.organizationId,
                  outcome: event.kind === 'refreshed' ? 'succeeded' : 'denied',
                  reasonCode:
                    event.kind === 'replay_detected'
                      ? 'refresh_token_replay'
                      : event.kind === 'membership_changed'
                        ? 'membership_authorization_changed'
                        : null,
                },
              ],
      }),
    };
  }

  /** Token rows of a family by state: `{ access: { active: 1 }, refresh: { rotated: 1, active: 1 } }`. */
  async tokenStates(familyId: string): Promise<{ access: Record<string, number>; refresh: Record<string, number> }> {
    const tally = async (name: string) => {
      const rows = await this.world.rows.sql(
        `select state, count(*)::int as n from tessera_identity.${name} where family_id = ? group by state`,
        [familyId],
      );
      return Object.fromEntries(rows.map((row) => [String(row['state']), Number(row['n'])]));
    };
    return { access: await tally('device_access_tokens'), refresh: await tally('device_refresh_tokens') };
  }

  /** Audit actions stored with `reasonCode`, newest last, for the family's organization. */
  async auditCount(action: string, reasonCode: string | null = null): Promise<number> {
    return this.world.rows.count(
      'audit_events',
      reasonCode === null ? 'action = ?' : 'action = ? and reason_code = ?',
      reasonCode === null ? [action] : [action, reasonCode],
    );
  }

  /** Changes the membership as a role change does (`version` + 1). */
  async changeRole(membershipId: string, role: OrganizationRole): Promise<void> {
    await this.world.rows.sql('update tessera_identity.memberships set role = ?, version = version + 1 where id = ?', [
      role,
      membershipId,
    ]);
  }
}
