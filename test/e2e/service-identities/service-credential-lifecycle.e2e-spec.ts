import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { formatTimestamp } from '@tessera/identity';
import request from 'supertest';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import {
  bearer,
  bootServiceApp,
  bootstrapOwner,
  codeOf,
  createServiceIdentity,
  read,
  rowsOf,
  send,
  servicePath,
  type Owner,
} from './service-identity.fixtures.js';

const PUBLISH = ['package.publish'];

describe('service credentials: rotation overlap, expiry, revocation (routes 42–45)', () => {
  let identity: IdentityTestApp;
  let owner: Owner;
  beforeEach(async () => {
    identity = await bootServiceApp();
    owner = await bootstrapOwner(identity);
  });
  afterEach(async () => identity?.close());

  const status = async (token: string) => {
    const res = await bearer(identity, 'post', `/host/orgs/${owner.organizationId}/packages`, token);
    return res.status === 201 ? 'ok' : `${res.status} ${codeOf(res)}`;
  };
  const credentialPath = (sid: string, ...rest: string[]) =>
    servicePath(owner.organizationId, sid, 'credentials', ...rest);

  it('keeps a rotated credential valid for exactly the 10-minute overlap, then refuses it; the replacement keeps the scopes', async () => {
    const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'ci',
      capabilities: PUBLISH,
    });
    identity.clock.advance({ minutes: 1 });
    const rotatedAt = identity.clock.now();
    const rotated = await send(
      identity,
      'post',
      credentialPath(ci.identityId, ci.credentialId, 'rotate'),
      owner.session,
    ).send({
      lifetimeSeconds: 86_400,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.credential).toMatchObject({
      serviceIdentityId: ci.identityId,
      capabilities: PUBLISH,
      state: 'active',
      createdAt: formatTimestamp(rotatedAt),
      expiresAt: formatTimestamp(new Date(rotatedAt.getTime() + 86_400_000)),
    });
    const next = rotated.body.token as string;
    expect(next).toMatch(new RegExp(`^${rotated.body.credential.id}\\.[A-Za-z0-9_-]{43}$`));
    const [old] = await rowsOf(identity).sql(
      'select state, rotated_to_id from tessera_identity.service_credentials where id = ?',
      [ci.credentialId],
    );
    expect(old).toEqual({ state: 'rotated', rotated_to_id: rotated.body.credential.id });

    expect(await status(ci.token)).toBe('ok');
    expect(await status(next)).toBe('ok');
    identity.clock.set(new Date(rotatedAt.getTime() + 600_000 - 1));
    expect(await status(ci.token)).toBe('ok');
    identity.clock.set(new Date(rotatedAt.getTime() + 600_000));
    expect(await status(ci.token)).toBe('401 invalid_credentials');
    expect(await status(next)).toBe('ok');

    const list = await read(identity, credentialPath(ci.identityId), owner.session);
    expect(list.body.map((c: { state: string; rotatedAt?: string }) => [c.state, c.rotatedAt])).toEqual([
      ['rotated', formatTimestamp(rotatedAt)],
      ['active', undefined],
    ]);
    await owner.refresh();
    const again = await send(
      identity,
      'post',
      credentialPath(ci.identityId, ci.credentialId, 'rotate'),
      owner.session,
    ).send({});
    expect({ status: again.status, code: codeOf(again) }).toEqual({ status: 404, code: 'not_found' });
  });

  it('ends a credential at its expiry: it authenticates until then, shows expired afterwards and can no longer be rotated', async () => {
    const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'short',
      capabilities: PUBLISH,
      lifetimeSeconds: 3600,
    });
    const start = identity.clock.now().getTime();
    identity.clock.set(new Date(start + 3_600_000 - 1));
    expect(await status(ci.token)).toBe('ok');
    identity.clock.set(new Date(start + 3_600_000));
    expect(await status(ci.token)).toBe('401 invalid_credentials');
    await owner.refresh();
    const list = await read(identity, credentialPath(ci.identityId), owner.session);
    expect(list.body[0]).toMatchObject({
      state: 'expired',
      lastUsedAt: formatTimestamp(new Date(start + 3_600_000 - 1)),
    });
    const rotate = await send(
      identity,
      'post',
      credentialPath(ci.identityId, ci.credentialId, 'rotate'),
      owner.session,
    ).send({});
    expect(codeOf(rotate)).toBe('not_found');
  });

  it('revokes an active or a rotated credential at once; a revoked one is 404', async () => {
    const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'ci',
      capabilities: PUBLISH,
    });
    const rotated = await send(
      identity,
      'post',
      credentialPath(ci.identityId, ci.credentialId, 'rotate'),
      owner.session,
    ).send({});
    const revokeOld = await send(identity, 'delete', credentialPath(ci.identityId, ci.credentialId), owner.session);
    expect(revokeOld.status).toBe(200);
    expect(revokeOld.body).toMatchObject({
      id: ci.credentialId,
      state: 'revoked',
      revokedAt: formatTimestamp(identity.clock.now()),
    });
    expect(revokeOld.body).not.toHaveProperty('token');
    expect(await status(ci.token)).toBe('401 invalid_credentials');
    const next = rotated.body.credential.id as string;
    expect(await status(rotated.body.token)).toBe('ok');
    expect((await send(identity, 'delete', credentialPath(ci.identityId, next), owner.session)).status).toBe(200);
    expect(await status(rotated.body.token)).toBe('401 invalid_credentials');
    const again = await send(identity, 'delete', credentialPath(ci.identityId, next), owner.session);
    expect({ status: again.status, code: codeOf(again) }).toEqual({ status: 404, code: 'not_found' });
    const audits = await rowsOf(identity).sql(
      `select target_id from tessera_identity.audit_events where action = 'service_credential.revoked' order by occurred_at, target_id`,
    );
    expect(audits.map((a) => a['target_id']).sort()).toEqual([ci.credentialId, next].sort());
  });

  it('checks that the credential belongs to the service identity before reading the body (routes 44, 45)', async () => {
    const a = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'a',
      capabilities: PUBLISH,
    });
    const b = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'b',
      capabilities: PUBLISH,
    });
    const raw = (path: string) =>
      request(identity.app.getHttpServer())
        .post(path)
        .set('cookie', owner.session.cookie)
        .set('origin', TEST_ORIGIN)
        .set('x-csrf-token', owner.session.csrfToken)
        .set('content-type', 'application/json')
        .send('{');
    const foreign = await raw(credentialPath(a.identityId, b.credentialId, 'rotate'));
    expect({ status: foreign.status, code: codeOf(foreign) }).toEqual({ status: 404, code: 'not_found' });
    const unknown = await raw(credentialPath(a.identityId, '01900000-0000-7000-8000-0000000000cc', 'rotate'));
    expect(codeOf(unknown)).toBe('not_found');
    const own = await raw(credentialPath(a.identityId, a.credentialId, 'rotate'));
    expect({ status: own.status, code: codeOf(own) }).toEqual({ status: 400, code: 'request_invalid' });
    const tooLong = await send(
      identity,
      'post',
      credentialPath(a.identityId, a.credentialId, 'rotate'),
      owner.session,
    ).send({
      lifetimeSeconds: 7_776_001,
    });
    expect(codeOf(tooLong)).toBe('request_invalid');
    const nonCanonical = await raw(credentialPath(a.identityId, a.credentialId.toUpperCase(), 'rotate'));
    expect(codeOf(nonCanonical)).toBe('request_invalid');
    const revokeForeign = await send(identity, 'delete', credentialPath(a.identityId, b.credentialId), owner.session);
    expect(codeOf(revokeForeign)).toBe('not_found');
    expect(await status(b.token)).toBe('ok');
  });

  it('requires a recent passkey (STEP) to create, rotate and revoke; reading does not', async () => {
    const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
      name: 'ci',
      capabilities: PUBLISH,
    });
    identity.clock.advance({ minutes: 6 });
    const stale = owner.session;
    const attempts = [
      send(identity, 'post', servicePath(owner.organizationId), stale).send({ name: 'x', capabilities: PUBLISH }),
      send(identity, 'post', credentialPath(ci.identityId), stale).send({ capabilities: PUBLISH }),
      send(identity, 'post', credentialPath(ci.identityId, ci.credentialId, 'rotate'), stale).send({}),
      send(identity, 'delete', credentialPath(ci.identityId, ci.credentialId), stale),
      send(identity, 'delete', servicePath(owner.organizationId, ci.identityId), stale),
    ];
    for (const res of await Promise.all(attempts)) {
      expect({ status: res.status, code: codeOf(res) }).toEqual({ status: 403, code: 'step_up_required' });
    }
    expect((await read(identity, credentialPath(ci.identityId), stale)).status).toBe(200);
    await owner.refresh();
    const rotated = await send(
      identity,
      'post',
      credentialPath(ci.identityId, ci.credentialId, 'rotate'),
      owner.session,
    ).send({});
    expect(rotated.status).toBe(200);
  });
});
