import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { formatTimestamp } from '@tessera/identity';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { keyedDigest } from '../recovery/recovery-e2e.support.js';
import {
  bearer,
  bootServiceApp,
  bootstrapOwner,
  codeOf,
  createServiceIdentity,
  kernelOf,
  read,
  rowsOf,
  send,
  servicePath,
  type Owner,
} from './service-identity.fixtures.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DAY = 86_400_000;

describe('service identities (routes 39–43, 41)', () => {
  let identity: IdentityTestApp;
  let owner: Owner;
  beforeEach(async () => {
    identity = await bootServiceApp();
    owner = await bootstrapOwner(identity);
  });
  afterEach(async () => identity?.close());

  const at = (offsetMs = 0) => formatTimestamp(new Date(identity.clock.now().getTime() + offsetMs));

  it('creates an identity with its first credential: the 256-bit token is shown once and only its keyed digest is stored', async () => {
    const org = owner.organizationId;
    const res = await send(identity, 'post', servicePath(org), owner.session).send({
      name: 'deployer',
      description: 'Publishes packages from CI',
      capabilities: ['package.publish', 'content.read'],
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { identity: view, credential, token } = res.body;
    expect(view).toEqual({
      id: expect.stringMatching(UUID_V7),
      organizationId: org,
      name: 'deployer',
      description: 'Publishes packages from CI',
      capabilities: ['package.publish', 'content.read'],
      state: 'active',
      version: 0,
      createdAt: at(),
      updatedAt: at(),
    });
    expect(credential).toEqual({
      id: expect.stringMatching(UUID_V7),
      serviceIdentityId: view.id,
      publicPrefix: credential.id,
      capabilities: ['package.publish', 'content.read'],
      state: 'active',
      createdAt: at(),
      expiresAt: at(30 * DAY),
    });
    expect(token).toMatch(new RegExp(`^${credential.id}\\.[A-Za-z0-9_-]{43}$`));
    const secret = (token as string).split('.')[1]!;
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);

    const [row] = await rowsOf(identity).sql('select * from tessera_identity.service_credentials where id = ?', [
      credential.id,
    ]);
    const pepper = kernelOf(identity).keys.servicePepper.current;
    expect(row).toMatchObject({
      public_prefix: credential.id,
      secret_digest_algorithm: 'hmac-sha256',
      secret_digest_key_version: pepper.version,
      secret_digest_encoded: keyedDigest(
        pepper.key,
        'tessera-service-credential-v1',
        credential.id,
        Buffer.from(secret, 'base64url'),
      ),
    });
    const stored = JSON.stringify([
      await rowsOf(identity).sql('select * from tessera_identity.service_credentials'),
      await rowsOf(identity).sql('select * from tessera_identity.service_identities'),
      await rowsOf(identity).sql('select * from tessera_identity.audit_events'),
    ]);
    expect(stored).not.toContain(secret);

    const listed = await read(identity, servicePath(org, view.id, 'credentials'), owner.session);
    expect(listed.body).toEqual([credential]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const audits = await rowsOf(identity).sql(
      `select actor_type, actor_user_id, organization_id, action, target_type, target_id
         from tessera_identity.audit_events where action like 'service_%' order by action`,
    );
    expect(audits).toEqual([
      {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        organization_id: org,
        action: 'service_credential.created',
        target_type: 'service_credential',
        target_id: credential.id,
      },
      {
        actor_type: 'user',
        actor_user_id: owner.session.userId,
        organization_id: org,
        action: 'service_identity.created',
        target_type: 'service_identity',
        target_id: view.id,
      },
    ]);
  });

  it("lists the organization's identities oldest first, never another organization's, and refuses a taken name with 409", async () => {
    const org = owner.organizationId;
    const first = await createServiceIdentity(identity, org, owner.session, {
      name: 'a',
      capabilities: ['content.read'],
    });
    identity.clock.advance({ seconds: 1 });
    const second = await createServiceIdentity(identity, org, owner.session, {
      name: 'b',
      capabilities: ['package.publish'],
      lifetimeSeconds: 3600,
    });
    expect(second.body['credential']).toMatchObject({ expiresAt: at(3_600_000) });
    const other = await rowsOf(identity).organization({ at: identity.clock.now() });
    await rowsOf(identity).insert('service_identities', {
      id: '01900000-0000-7000-8000-00000000000a',
      organization_id: other,
      name: 'foreign',
      description: null,
      capabilities: '{content.read}',
      state: 'active',
      created_at: identity.clock.now(),
      updated_at: identity.clock.now(),
      version: 0,
    });
    const list = await read(identity, servicePath(org), owner.session);
    expect(list.status).toBe(200);
    expect(list.body.map((i: { id: string }) => i.id)).toEqual([first.identityId, second.identityId]);
    expect(list.body[0]).toEqual(first.body['identity']);
    const taken = await send(identity, 'post', servicePath(org), owner.session).send({
      name: 'a',
      capabilities: ['content.read'],
    });
    expect({ status: taken.status, code: codeOf(taken) }).toEqual({ status: 409, code: 'conflict' });
  });

  it('adds credentials within the identity scopes only, and only to an active identity of the organization', async () => {
    const org = owner.organizationId;
    const ci = await createServiceIdentity(identity, org, owner.session, {
      name: 'ci',
      capabilities: ['package.publish'],
    });
    const path = servicePath(org, ci.identityId, 'credentials');
    identity.clock.advance({ seconds: 1 });
    const added = await send(identity, 'post', path, owner.session).send({
      capabilities: ['package.publish'],
      lifetimeSeconds: 7200,
    });
    expect(added.status).toBe(201);
    expect(added.body.credential).toMatchObject({
      serviceIdentityId: ci.identityId,
      capabilities: ['package.publish'],
      state: 'active',
      expiresAt: at(7_200_000),
    });
    expect(added.body.token).toMatch(new RegExp(`^${added.body.credential.id}\\.`));
    const wider = await send(identity, 'post', path, owner.session).send({ capabilities: ['content.read'] });
    expect({ status: wider.status, code: codeOf(wider) }).toEqual({ status: 404, code: 'not_found' });
    const unknown = await send(
      identity,
      'post',
      servicePath(org, '01900000-0000-7000-8000-00000000000b', 'credentials'),
      owner.session,
    ).send({
      capabilities: ['package.publish'],
    });
    expect(codeOf(unknown)).toBe('not_found');
    const list = await read(identity, path, owner.session);
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([ci.credentialId, added.body.credential.id]);
  });

  it('revokes an identity and, in the same step, every active and rotated credential of it', async () => {
    const org = owner.organizationId;
    const ci = await createServiceIdentity(identity, org, owner.session, {
      name: 'ci',
      capabilities: ['package.publish', 'content.read'],
    });
    const second = await send(identity, 'post', servicePath(org, ci.identityId, 'credentials'), owner.session).send({
      capabilities: ['content.read'],
    });
    const rotated = await send(
      identity,
      'post',
      servicePath(org, ci.identityId, 'credentials', ci.credentialId, 'rotate'),
      owner.session,
    ).send({});
    expect(rotated.status).toBe(200);
    const tokens = [ci.token, second.body.token as string, rotated.body.token as string];
    for (const token of tokens) expect((await bearer(identity, 'get', '/host/whoami', token)).status).toBe(200);

    identity.clock.advance({ seconds: 5 });
    const revoked = await send(identity, 'delete', servicePath(org, ci.identityId), owner.session);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: ci.identityId, state: 'revoked', version: 1, revokedAt: at() });
    const credentials = await read(identity, servicePath(org, ci.identityId, 'credentials'), owner.session);
    expect(credentials.body.map((c: { state: string; revokedAt?: string }) => [c.state, c.revokedAt])).toEqual([
      ['revoked', at()],
      ['revoked', at()],
      ['revoked', at()],
    ]);
    for (const token of tokens) {
      const res = await bearer(identity, 'get', '/host/whoami', token);
      expect({ status: res.status, code: codeOf(res) }).toEqual({ status: 401, code: 'invalid_credentials' });
    }
    expect(codeOf(await send(identity, 'delete', servicePath(org, ci.identityId), owner.session))).toBe('not_found');
    const late = await send(identity, 'post', servicePath(org, ci.identityId, 'credentials'), owner.session).send({
      capabilities: ['content.read'],
    });
    expect(codeOf(late)).toBe('not_found');
    const [audit] = await rowsOf(identity).sql(
      `select target_id from tessera_identity.audit_events where action = 'service_identity.revoked'`,
    );
    expect(audit).toEqual({ target_id: ci.identityId });
  });
});
