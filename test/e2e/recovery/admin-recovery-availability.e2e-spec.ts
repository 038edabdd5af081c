import { describe, it, expect, afterEach } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DEFAULT_RATE_LIMITS } from '@tessera/identity';
import { testUuidV7 } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp, type IdentityTestModuleOptions } from '../../support/identity-app.js';
import { passkeyOwner, post } from '../../support/passkey-client.js';
import { REDEEM, TestAuthorizer, TestSink, TICKETS } from './admin-recovery.fixtures.js';
import { errorCode, rowsOf, unsafe } from './recovery-e2e.support.js';

describe('administrative recovery is disabled unless both integrations are configured', () => {
  let identity: IdentityTestApp | undefined;
  afterEach(async () => identity?.close());

  it.each<[string, (a: TestAuthorizer, s: TestSink) => IdentityTestModuleOptions]>([
    ['neither integration', () => ({})],
    ['only a platform authorizer', (platformAuthorizer) => ({ platformAuthorizer })],
    ['only a notification sink', (_a, notificationSink) => ({ notificationSink })],
  ])('answers 404 not_found on routes 18–20 with %s', async (_name, options) => {
    const authorizer = new TestAuthorizer();
    const sink = new TestSink();
    identity = await bootIdentityApp({}, undefined, options(authorizer, sink));
    const owner = await passkeyOwner(identity);
    authorizer.allowed.add(owner.session.userId);
    const ticketId = testUuidV7(identity.clock.now());
    for (const res of [
      await unsafe(identity, 'post', TICKETS, owner.session).send({ userId: owner.session.userId }),
      await unsafe(identity, 'delete', `${TICKETS}/${ticketId}`, owner.session),
      await post(identity, REDEEM).send({ token: `${ticketId}.${randomBytes(32).toString('base64url')}` }),
      await post(identity, REDEEM).send({}),
    ]) {
      expect([res.status, errorCode(res)]).toEqual([404, 'not_found']);
    }
    expect(authorizer.calls).toEqual([]);
    expect(sink.deliveries).toEqual([]);
    expect(await rowsOf(identity).count('challenges', "purpose = 'account_recovery'")).toBe(0);
    const clientConfig = await request(identity.app.getHttpServer()).get('/identity/v1/client-config');
    expect(clientConfig.body.features.administrativeRecovery).toBe(false);
  });

  it('reports the feature in client-config once both integrations are configured', async () => {
    identity = await bootIdentityApp({}, undefined, {
      platformAuthorizer: new TestAuthorizer(),
      notificationSink: new TestSink(),
    });
    const res = await request(identity.app.getHttpServer()).get('/identity/v1/client-config');
    expect(res.status).toBe(200);
    expect(res.body.features).toMatchObject({ administrativeRecovery: true, federation: true, scim: true });
  });
});

describe('administrative ticket rate limit (policy admin_ticket_redeem, default configuration)', () => {
  let identity: IdentityTestApp | undefined;
  afterEach(async () => identity?.close());

  it('denies the limit + 1st redemption with 429 and Retry-After before the ticket is checked', async () => {
    const authorizer = new TestAuthorizer();
    const sink = new TestSink();
    identity = await bootIdentityApp({}, undefined, { platformAuthorizer: authorizer, notificationSink: sink });
    const { limit, windowSeconds } = DEFAULT_RATE_LIMITS.admin_ticket_redeem;
    const owner = await passkeyOwner(identity);
    authorizer.allowed.add(owner.session.userId);
    const issued = await unsafe(identity, 'post', TICKETS, owner.session).send({ userId: owner.session.userId });
    expect(issued.status).toBe(201);
    const { ticketId, token } = sink.deliveries[0]!;
    for (let i = 0; i < limit; i++) {
      const res = await post(identity, REDEEM).send({ token: `${ticketId}.${randomBytes(32).toString('base64url')}` });
      expect([res.status, errorCode(res)]).toEqual([401, 'invalid_credentials']);
    }
    for (const body of [{ token }, {}]) {
      const denied = await post(identity, REDEEM).send(body);
      expect([denied.status, errorCode(denied)]).toEqual([429, 'rate_limited']);
      const retryAfter = Number(denied.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds).toBe(true);
    }
    const [row] = await rowsOf(identity).sql('select state from tessera_identity.challenges where id = ?', [ticketId]);
    expect(row).toEqual({ state: 'pending' });
    identity.clock.advance({ seconds: windowSeconds });
    expect((await post(identity, REDEEM).send({ token })).status).toBe(200);
  });
});
