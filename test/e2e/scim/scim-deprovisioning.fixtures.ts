import { MikroORM } from '@mikro-orm/core';
import { issueSession, type StoreResult } from '@tessera/identity';
import { IdentityTestRows, testBase64Url, testDigest, testUuidV7 } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { identityKernelOf } from '../../support/identity-kernel.js';

function unwrap<T>(result: StoreResult<T>, what: string): T {
  if (!result.ok) throw new Error(`${what} failed: ${result.code}`);
  return result.value;
}

/**
 * A federated session of `userId` pinned to `organizationId`, made the way the OIDC callback makes
 * one for a signed-in user who links their account (`linkExternalIdentity` in `link` mode through
 * the store port): an initiating passkey session is rotated into it. Returns the session id.
 *
 * @example
 * const sessionId = await seedFederatedSession(identity, organizationId, userId);
 */
export async function seedFederatedSession(
  identity: IdentityTestApp,
  organizationId: string,
  userId: string,
): Promise<string> {
  const kernel = identityKernelOf(identity.app);
  const rows = new IdentityTestRows(identity.app.get(MikroORM).em.fork());
  const at = identity.clock.now();
  const lease = unwrap(
    await kernel.store.acquireFederationProviderLease({
      organizationId,
      providerId: `oidc-${testBase64Url(6)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, 'x')}`,
      kind: 'oidc',
      storageKey: `oidc.${testBase64Url(32)}`,
      at,
    }),
    'acquireFederationProviderLease',
  );
  const initiator = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
    userId,
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    authenticatedAt: at,
    lifetimes: { idleSeconds: 3600, absoluteSeconds: 3600 },
  });
  await rows.session(initiator.session);
  const signedIn = unwrap(
    await kernel.store.linkExternalIdentity({
      lease,
      assertion: {
        subject: `subject-${testBase64Url(9)}`,
        replayDigest: testBase64Url(),
        replayExpiresAt: new Date(at.getTime() + 3_600_000),
      },
      mode: { kind: 'link', sessionId: initiator.session.id, expectedUserId: userId },
      externalIdentityId: testUuidV7(at),
      at,
      sessionFor: (user, link, predecessor) => {
        const id = testUuidV7(at);
        return {
          id,
          familyId: predecessor?.familyId ?? id,
          userId: user.id,
          tokenDigest: testDigest(),
          csrfDigest: testDigest(),
          assurance: 'session',
          authenticationMethod: 'oidc',
          label: null,
          platform: null,
          rotationCounter: (predecessor?.rotationCounter ?? -1) + 1,
          authenticatedAt: at,
          idleExpiresAt: new Date(at.getTime() + 1_800_000),
          absoluteExpiresAt: new Date(at.getTime() + 3_600_000),
          federation: {
            organizationId: lease.organizationId,
            providerKey: lease.storageKey,
            providerSessionEpoch: lease.sessionEpoch,
            externalIdentityId: link.id,
          },
        };
      },
      audits: () => [],
    }),
    'linkExternalIdentity',
  );
  return signedIn.session.id;
}

/** The stored state of a session. */
export async function sessionState(identity: IdentityTestApp, sessionId: string): Promise<string> {
  const rows = new IdentityTestRows(identity.app.get(MikroORM).em.fork());
  const [row] = await rows.sql('select state from tessera_identity.sessions where id = ?', [sessionId]);
  return String(row!['state']);
}

/** The stored role and state of a user's membership in an organization, and the user's epoch. */
export async function membershipRow(
  identity: IdentityTestApp,
  organizationId: string,
  userId: string,
): Promise<{ id: string; role: string; state: string; epoch: number }> {
  const rows = new IdentityTestRows(identity.app.get(MikroORM).em.fork());
  const [row] = await rows.sql(
    `select m.id, m.role, m.state, u.session_epoch from tessera_identity.memberships m
       join tessera_identity.users u on u.id = m.user_id where m.organization_id = ? and m.user_id = ?`,
    [organizationId, userId],
  );
  return {
    id: String(row!['id']),
    role: String(row!['role']),
    state: String(row!['state']),
    epoch: Number(row!['session_epoch']),
  };
}
