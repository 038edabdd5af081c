import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import { issueSession, type OrganizationRole } from '@tessera/identity';
import { IdentityTestRows, testDigest, testUuidV7 } from '@tessera/identity-testing';
import { issueDeviceToken } from '../../../libs/identity/src/tokens/device-token.format.js';
import { issueServiceCredentialSecret } from '../../../libs/identity/src/service-identities/service-credential.token.js';
import { identityKernelOf } from '../../support/identity-kernel.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
export const CLIENT_ID = 'tessera-cli';
const REQUESTED = ['identity.organizations', 'identity.profile', 'package.publish'];

/** A device token family seeded through the store port, and the bearer a CLI would hold. */
export interface SeededDevice {
  readonly userId: string;
  readonly organizationId: string;
  readonly membershipId: string;
  readonly familyId: string;
  /** `<selector>.<secret>` of the family's first access token. */
  readonly accessToken: string;
  readonly refreshToken: string;
}

function unwrap<T>(result: { ok: true; value: T } | { ok: false; code: string }, what: string): T {
  if (!result.ok) throw new Error(`${what} failed: ${result.code}`);
  return result.value;
}

/**
 * Seeds a device flow end to end through the store port, the way the OAuth routes drive it: a
 * member of `organizationId` (with `role`) inspects and approves a grant with `scopes`, which is
 * claimed at `at` into an active family with a real access/refresh pair (issued with the device
 * pepper, so the access token resolves as a bearer). The access token lives 15 minutes from `at`.
 *
 * @example
 * const device = await seedDevice(app, organizationId, { scopes: ['identity.profile'] });
 */
export async function seedDevice(
  app: INestApplication,
  organizationId: string,
  over: {
    role?: OrganizationRole;
    scopes?: readonly string[];
    at?: Date;
    /** An existing member of `organizationId` instead of a new user. */
    member?: { userId: string; membershipId: string };
  } = {},
): Promise<SeededDevice> {
  const kernel = identityKernelOf(app);
  const { store, audit } = kernel;
  const rows = new IdentityTestRows(app.get(MikroORM).em.fork());
  const at = over.at ?? new Date();
  const userId = over.member?.userId ?? (await rows.user({ at }));
  const membershipId =
    over.member?.membershipId ??
    (await rows.membership(organizationId, userId, { role: over.role ?? 'publisher', at }));
  const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId,
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: at,
    lifetimes: { idleSeconds: 3600, absoluteSeconds: 3600 },
  });
  await rows.session(issued.session);
  const grantId = testUuidV7(at);
  const deviceCodeDigest = testDigest();
  const userCodeDigest = testDigest();
  const event = (action: string, reasonCode: string | null = null) => ({
    ...audit.event(undefined, at, {
      actor: { type: 'system' },
      action,
      organizationId,
      target: { type: 'device_grant', id: grantId },
    }),
    reasonCode,
  });
  unwrap(
    await store.createDeviceGrant({
      grant: {
        id: grantId,
        deviceCodeDigest,
        userCodeDigest,
        clientId: CLIENT_ID,
        clientName: 'Tessera CLI',
        requestedCapabilities: REQUESTED,
        intervalSeconds: 5,
        expiresAt: new Date(at.getTime() + 10 * MINUTE),
      },
      at,
      audit: event('device_grant.changed', 'device_authorization_started'),
    }),
    'createDeviceGrant',
  );
  unwrap(await store.inspectDeviceGrant({ userCodeDigest, sessionId: issued.session.id, at }), 'inspectDeviceGrant');
  unwrap(
    await store.authorizeDeviceGrant({
      userCodeDigest,
      sessionId: issued.session.id,
      inspectedSince: new Date(at.getTime() - 10 * MINUTE),
      userId,
      organizationId,
      approvedCapabilities: over.scopes ?? REQUESTED,
      at,
      audit: event('device_grant.changed', 'device_authorization_approved'),
    }),
    'authorizeDeviceGrant',
  );
  const access = issueDeviceToken('access', kernel.runtime, kernel.keys.devicePepper);
  const refresh = issueDeviceToken('refresh', kernel.runtime, kernel.keys.devicePepper);
  const familyExpiresAt = new Date(at.getTime() + 30 * DAY);
  const claimed = unwrap(
    await store.claimDeviceGrant({
      deviceCodeDigest,
      clientId: CLIENT_ID,
      familyId: testUuidV7(at),
      familyExpiresAt,
      tokens: {
        accessToken: {
          id: access.id,
          tokenDigest: access.tokenDigest,
          expiresAt: new Date(at.getTime() + 15 * MINUTE),
        },
        refreshToken: { id: refresh.id, tokenDigest: refresh.tokenDigest, expiresAt: familyExpiresAt },
      },
      at,
      audits: ({ kind }) => [
        kind === 'issued'
          ? event('device_token.issued')
          : event('device_grant.changed', 'membership_authorization_changed'),
      ],
    }),
    'claimDeviceGrant',
  );
  return {
    userId,
    organizationId,
    membershipId,
    familyId: claimed.family.id,
    accessToken: access.token,
    refreshToken: refresh.token,
  };
}

/**
 * A service identity of `organizationId` with one active credential carrying `capabilities`,
 * created through the store port; returns the bearer token and the identity id.
 *
 * @example
 * const ci = await seedServiceCredential(app, organizationId, ['package.publish']);
 */
export async function seedServiceCredential(
  app: INestApplication,
  organizationId: string,
  capabilities: readonly string[],
): Promise<{ identityId: string; token: string }> {
  const kernel = identityKernelOf(app);
  const at = new Date();
  const identityId = testUuidV7(at);
  const secret = issueServiceCredentialSecret(kernel.runtime, kernel.keys.servicePepper);
  unwrap(
    await kernel.store.createServiceIdentity({
      identity: { id: identityId, organizationId, name: `ci-${identityId.slice(-6)}`, description: null, capabilities },
      credential: {
        id: secret.id,
        serviceIdentityId: identityId,
        secretDigest: secret.secretDigest,
        capabilities,
        expiresAt: new Date(at.getTime() + DAY),
      },
      at,
      audits: [],
    }),
    'createServiceIdentity',
  );
  return { identityId, token: secret.token };
}

/** The stored state of a family and the state tally of its access tokens. */
export async function familyRow(
  app: INestApplication,
  familyId: string,
): Promise<{ state: string; reason: string | null; activeAccessTokens: number }> {
  const rows = new IdentityTestRows(app.get(MikroORM).em.fork());
  const [family] = await rows.sql(
    'select state, revoked_reason from tessera_identity.device_token_families where id = ?',
    [familyId],
  );
  const active = await rows.count('device_access_tokens', "family_id = ? and state = 'active'", [familyId]);
  return {
    state: String(family!['state']),
    reason: (family!['revoked_reason'] as string | null) ?? null,
    activeAccessTokens: active,
  };
}
