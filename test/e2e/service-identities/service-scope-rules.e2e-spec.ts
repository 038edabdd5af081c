import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach } from '@jest/globals';
import type { IdentityTestApp } from '../../support/identity-app.js';
import {
  bootServiceApp,
  bootstrapOwner,
  codeOf,
  createServiceIdentity,
  envelopeOf,
  read,
  rowsOf,
  seedMember,
  send,
  servicePath,
  type Owner,
} from './service-identity.fixtures.js';

const PUBLISH = ['package.publish'];

describe('service identity scope rules and tenancy (identity-model §5.8, §6)', () => {
  let identity: IdentityTestApp;
  let owner: Owner;

  const create = (body: Record<string, unknown>, session = owner.session, org = owner.organizationId) =>
    send(identity, 'post', servicePath(org), session).send(body);

  describe('refused requests (one app: nothing is ever stored)', () => {
    beforeAll(async () => {
      identity = await bootServiceApp();
      owner = await bootstrapOwner(identity);
    });
    afterAll(async () => identity?.close());

    it.each<[string, unknown]>([
      ['a capability outside the service allowlist', ['content.write']],
      ['an identity-owned capability the owner holds (audit.read)', ['audit.read']],
      ['service identity management (never delegable)', ['service_identity.manage']],
      ['the recovery capability', ['identity.account.recover']],
      ['an allowlisted scope next to an identity-owned one', ['package.publish', 'membership.invite']],
      ['no capability', []],
      ['a repeated capability', ['package.publish', 'package.publish']],
      ['a malformed capability name', ['Package.Publish']],
      ['a non-string capability', [42]],
      ['65 capabilities', Array.from({ length: 65 }, (_, i) => `app.scope${i}`)],
    ])('refuses %s with 400 request_invalid and stores nothing', async (_name, capabilities) => {
      const res = await create({ name: 'ci', capabilities });
      expect({ status: res.status, code: codeOf(res) }).toEqual({ status: 400, code: 'request_invalid' });
      expect(await rowsOf(identity).count('service_identities')).toBe(0);
    });

    it.each<[string, unknown]>([
      ['zero', 0],
      ['a negative lifetime', -1],
      ['a fraction', 1.5],
      ['a string', '3600'],
      ['more than 90 days', 7_776_001],
    ])('refuses lifetimeSeconds of %s', async (_name, lifetimeSeconds) => {
      const res = await create({ name: 'ci', capabilities: PUBLISH, lifetimeSeconds });
      expect(codeOf(res)).toBe('request_invalid');
    });

    it('refuses unknown keys, null fields and bad names', async () => {
      for (const body of [
        { name: 'x', capabilities: PUBLISH, scopes: PUBLISH },
        { name: 'x', capabilities: PUBLISH, description: null },
        { name: '', capabilities: PUBLISH },
        { name: 'x'.repeat(201), capabilities: PUBLISH },
        { name: 'line\nbreak', capabilities: PUBLISH },
        { name: 'x', capabilities: PUBLISH, description: 'd'.repeat(2001) },
        { capabilities: PUBLISH },
      ]) {
        expect(codeOf(await create(body))).toBe('request_invalid');
      }
      expect(await rowsOf(identity).count('service_identities')).toBe(0);
    });
  });

  describe('on a fresh app each', () => {
    beforeEach(async () => {
      identity = await bootServiceApp();
      owner = await bootstrapOwner(identity);
    });
    afterEach(async () => identity?.close());

    it('limits delegation to the actor’s effective capabilities in that organization', async () => {
      // `reports.export` is allowlisted, but no role of this app is granted it.
      const beyond = await create({ name: 'ci', capabilities: ['reports.export'] });
      expect({ status: beyond.status, code: codeOf(beyond) }).toEqual({ status: 400, code: 'request_invalid' });
      const admin = await seedMember(identity, owner.organizationId, 'admin');
      expect(
        (await create({ name: 'by-admin', capabilities: ['package.publish', 'content.read'] }, admin)).status,
      ).toBe(201);
      const ci = await createServiceIdentity(identity, owner.organizationId, owner.session, {
        name: 'ci',
        capabilities: PUBLISH,
      });
      const credential = await send(
        identity,
        'post',
        servicePath(owner.organizationId, ci.identityId, 'credentials'),
        owner.session,
      ).send({ capabilities: ['reports.export'] });
      expect(codeOf(credential)).toBe('request_invalid');
    });

    it('accepts a lifetime of exactly 90 days', async () => {
      const longest = await create({ name: 'ci', capabilities: PUBLISH, lifetimeSeconds: 7_776_000 });
      expect(longest.status).toBe(201);
      const days =
        (Date.parse(longest.body.credential.expiresAt) - Date.parse(longest.body.credential.createdAt)) / 86_400_000;
      expect(days).toBe(90);
    });

    it('answers every tenancy failure with the same 404 as an unknown organization', async () => {
      const org = owner.organizationId;
      const ci = await createServiceIdentity(identity, org, owner.session, { name: 'ci', capabilities: PUBLISH });
      const other = await rowsOf(identity).organization({ at: identity.clock.now() });
      const deleted = await rowsOf(identity).organization({ at: identity.clock.now(), state: 'deleted' });
      const outsider = await seedMember(identity, other, 'owner');
      const viewer = await seedMember(identity, org, 'viewer');
      const publisher = await seedMember(identity, org, 'publisher');
      const deletedOwner = await seedMember(identity, deleted, 'owner');
      const unknown = '01900000-0000-7000-8000-0000000000ee';
      const routes = (o: string) => [
        (s: typeof viewer) => read(identity, servicePath(o), s),
        (s: typeof viewer) => send(identity, 'post', servicePath(o), s).send({ name: 'x', capabilities: PUBLISH }),
        (s: typeof viewer) => send(identity, 'delete', servicePath(o, ci.identityId), s),
        (s: typeof viewer) => read(identity, servicePath(o, ci.identityId, 'credentials'), s),
        (s: typeof viewer) =>
          send(identity, 'post', servicePath(o, ci.identityId, 'credentials'), s).send({ capabilities: PUBLISH }),
        (s: typeof viewer) =>
          send(identity, 'post', servicePath(o, ci.identityId, 'credentials', ci.credentialId, 'rotate'), s).send({}),
        (s: typeof viewer) =>
          send(identity, 'delete', servicePath(o, ci.identityId, 'credentials', ci.credentialId), s),
      ];
      const reference = envelopeOf(await read(identity, servicePath(unknown), owner.session));
      expect(reference).toEqual({
        status: 404,
        error: { code: 'not_found', message: 'The requested identity resource was not found', retryable: false },
      });
      const cases: [string, typeof viewer][] = [
        [org, outsider],
        [org, viewer],
        [org, publisher],
        [unknown, owner.session],
        [deleted, deletedOwner],
        [other, owner.session],
      ];
      for (const [o, session] of cases) {
        for (const route of routes(o)) expect(envelopeOf(await route(session))).toEqual(reference);
      }
      expect(codeOf(await read(identity, servicePath(org.toUpperCase()), owner.session))).toBe('request_invalid');
      const listed = await read(identity, servicePath(org, ci.identityId, 'credentials'), owner.session);
      expect(listed.body.map((c: { state: string }) => c.state)).toEqual(['active']);
    });

    it('honours a configured maximum lifetime below 90 days', async () => {
      await identity.close();
      identity = await bootServiceApp({
        lifetimes: { serviceCredentialSeconds: 3600, serviceCredentialMaxSeconds: 86_400 },
      });
      owner = await bootstrapOwner(identity);
      expect(codeOf(await create({ name: 'ci', capabilities: PUBLISH, lifetimeSeconds: 86_401 }))).toBe(
        'request_invalid',
      );
      const ok = await create({ name: 'ci', capabilities: PUBLISH, lifetimeSeconds: 86_400 });
      expect(ok.status).toBe(201);
      const byDefault = await create({ name: 'default', capabilities: PUBLISH });
      const created = new Date(byDefault.body.credential.createdAt).getTime();
      expect(new Date(byDefault.body.credential.expiresAt).getTime() - created).toBe(3_600_000);
    });
  });
});
