import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { MikroORM } from '@mikro-orm/core';
import { issueSession } from '@tessera/identity';
import { identityKernelOf } from '../../support/identity-kernel.js';
import { IdentityTestRows, seedFederation } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';

describe('federated sessions are checked against their provider, tenant and membership (identity-http §2.1)', () => {
  let identity: IdentityTestApp;
  let rows: IdentityTestRows;
  beforeAll(async () => {
    identity = await bootIdentityApp();
    rows = new IdentityTestRows(identity.app.get(MikroORM).em);
  });
  afterAll(async () => identity.close());

  /** An OIDC session of a member of a fresh tenant, stored as the federation callback will store it. */
  async function federatedSession() {
    const kernel = identityKernelOf(identity.app);
    const at = identity.clock.now();
    const organizationId = await rows.organization({ at });
    const userId = await rows.user({ at });
    const membershipId = await rows.membership(organizationId, userId, { at });
    const federation = await seedFederation(rows, organizationId, userId, at, { sessionEpoch: 1 });
    const issued = issueSession(kernel.runtime, kernel.keys.sessionPepper, {
      userId,
      assurance: 'session',
      authenticationMethod: 'oidc',
      authenticatedAt: at,
      lifetimes: { idleSeconds: 3600, absoluteSeconds: 86_400 },
      federation,
    });
    await rows.session(issued.session);
    return { cookie: `__Host-tessera_session=${issued.cookieToken}`, organizationId, membershipId, federation };
  }

  const me = (cookie: string) => request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', cookie);

  async function expectRevoked(cookie: string): Promise<void> {
    const res = await me(cookie);
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 401, code: 'session_revoked' });
  }

  it('accepts a federated session while its provider, tenant and membership hold', async () => {
    const { cookie } = await federatedSession();
    expect((await me(cookie)).status).toBe(200);
  });

  it('revokes it once the provider is disabled', async () => {
    const { cookie, organizationId, federation } = await federatedSession();
    expect((await me(cookie)).status).toBe(200);
    const at = identity.clock.now();
    await rows.sql(
      `update tessera_identity.federation_provider_controls
          set state = 'disabled', disabled_at = ?, updated_at = ?, disabled_reason = 'incident'
        where organization_id = ? and storage_key = ?`,
      [at, at, organizationId, federation.providerKey],
    );
    await expectRevoked(cookie);
  });

  it("revokes it once the provider's session epoch moved", async () => {
    const { cookie, organizationId, federation } = await federatedSession();
    await rows.sql(
      `update tessera_identity.federation_provider_controls set session_epoch = session_epoch + 1
        where organization_id = ? and storage_key = ?`,
      [organizationId, federation.providerKey],
    );
    await expectRevoked(cookie);
  });

  it('revokes it once the tenant organization is suspended', async () => {
    const { cookie, organizationId } = await federatedSession();
    await rows.sql(`update tessera_identity.organizations set state = 'suspended' where id = ?`, [organizationId]);
    await expectRevoked(cookie);
  });

  it('revokes it once the membership in the tenant is suspended', async () => {
    const { cookie, membershipId } = await federatedSession();
    await rows.sql(`update tessera_identity.memberships set state = 'suspended' where id = ?`, [membershipId]);
    await expectRevoked(cookie);
  });
});
