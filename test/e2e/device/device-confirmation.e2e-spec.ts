import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedPasskeySession, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { seedMember } from '../../support/tenant-seed.js';
import { bootDeviceApp, pollToken, postForm, rowsOf, seedApprover, startDevice } from './device.fixtures.js';

const NOT_FOUND = { code: 'not_found', retryable: false };

/**
 * Routes 35–38 over HTTP: inspect (the confirmation screen), approve for an explicit organization
 * with approved ⊆ requested ⊆ the approver's effective capabilities, deny, and the holder's cancel;
 * approve and deny only from the session that inspected the code.
 */
describe('device confirmation routes 35–38', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootDeviceApp({
      device_user_code: { limit: 100, windowSeconds: 600 },
      device_code_holder: { limit: 3, windowSeconds: 60 },
    });
  });

  afterAll(async () => {
    await identity?.close();
  });

  it('inspects, approves a narrowed set for the chosen organization, and the client gets exactly it', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity, { scope: 'identity.organizations identity.profile' });
    const code = ` ${started.user_code.replace('-', '').toLowerCase()} `;
    const inspected = await post(identity, '/identity/v1/device', approver.session).send({ userCode: code });
    expect(inspected.status).toBe(200);
    expect(inspected.body).toEqual({
      id: expect.any(String),
      clientName: 'Tessera CLI',
      requestedCapabilities: ['identity.organizations', 'identity.profile'],
      state: 'pending',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    const approved = await post(identity, '/identity/v1/device/approve', approver.session).send({
      userCode: started.user_code,
      organizationId: approver.organizationId,
      capabilities: ['identity.profile'],
    });
    expect({ status: approved.status, body: approved.body }).toEqual({ status: 200, body: { ok: true } });
    const tokens = await pollToken(identity, started.device_code);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('identity.profile');
    // The approval is audited about its grant, in the chosen organization's log.
    const decisions = await rowsOf(
      identity,
      `select actor_user_id, organization_id, target_type from tessera_identity.audit_events
        where target_id = ? and reason_code = 'device_authorization_approved'`,
      [inspected.body.id],
    );
    expect(decisions).toEqual([
      { actor_user_id: approver.userId, organization_id: approver.organizationId, target_type: 'device_grant' },
    ]);
    // Once exchanged (consumed), the grant is gone for inspection.
    const again = await post(identity, '/identity/v1/device', approver.session).send({ userCode: started.user_code });
    expect(again.status).toBe(404);
  });

  it('refuses approval without an inspection by the same session, and outside the approver’s capabilities', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity);
    const body = {
      userCode: started.user_code,
      organizationId: approver.organizationId,
      capabilities: ['identity.profile'],
    };
    const uninspected = await post(identity, '/identity/v1/device/approve', approver.session).send(body);
    expect({ status: uninspected.status, error: uninspected.body.error }).toMatchObject({
      status: 404,
      error: NOT_FOUND,
    });

    expect(
      (await post(identity, '/identity/v1/device', approver.session).send({ userCode: started.user_code })).status,
    ).toBe(200);
    const otherSession = await seedPasskeySession(identity, approver.userId);
    const fromOther = await post(identity, '/identity/v1/device/approve', otherSession).send(body);
    expect(fromOther.status).toBe(404);
    const deniedFromOther = await post(identity, '/identity/v1/device/deny', otherSession).send({
      userCode: started.user_code,
    });
    expect(deniedFromOther.status).toBe(404);

    // package.publish is requested but not among a viewer's effective capabilities (the
    // application grant gives it to publishers and above).
    const viewer = await seedMember(identity, approver.organizationId, 'viewer');
    expect(
      (await post(identity, '/identity/v1/device', viewer.session).send({ userCode: started.user_code })).status,
    ).toBe(200);
    const tooMuch = await post(identity, '/identity/v1/device/approve', viewer.session).send({
      ...body,
      capabilities: ['package.publish'],
    });
    expect(tooMuch.status).toBe(404);
    // Another organization (no membership there).
    const other = await seedApprover(identity);
    const wrongOrganization = await post(identity, '/identity/v1/device/approve', approver.session).send({
      ...body,
      organizationId: other.organizationId,
    });
    expect(wrongOrganization.status).toBe(404);
    const [grant] = await rowsOf(identity, 'select state from tessera_identity.device_grants where id = ?', [
      (await post(identity, '/identity/v1/device', approver.session).send({ userCode: started.user_code })).body.id,
    ]);
    expect(grant).toEqual({ state: 'pending' });
  });

  it('denies: the client gets access_denied; a malformed code is 401', async () => {
    const approver = await seedApprover(identity);
    const started = await startDevice(identity);
    expect(
      (await post(identity, '/identity/v1/device', approver.session).send({ userCode: started.user_code })).status,
    ).toBe(200);
    const denied = await post(identity, '/identity/v1/device/deny', approver.session).send({
      userCode: started.user_code,
    });
    expect({ status: denied.status, body: denied.body }).toEqual({ status: 200, body: { ok: true } });
    expect((await pollToken(identity, started.device_code)).body.error).toBe('access_denied');
    const visible = await post(identity, '/identity/v1/device', approver.session).send({ userCode: started.user_code });
    expect(visible.body.state).toBe('denied');
    const malformed = await post(identity, '/identity/v1/device/deny', approver.session).send({ userCode: 'nope' });
    expect({ status: malformed.status, code: malformed.body.error.code }).toEqual({
      status: 401,
      code: 'invalid_credentials',
    });
  });

  it('limits 35–37 per user (device_user_code, one shared bucket): 429 with Retry-After', async () => {
    const approver = await seedApprover(identity);
    for (let i = 0; i < 50; i++) {
      expect(
        (await post(identity, '/identity/v1/device', approver.session).send({ userCode: 'ABCD-EFGH' })).status,
      ).toBe(404);
      expect(
        (await post(identity, '/identity/v1/device/deny', approver.session).send({ userCode: 'ABCD-EFGH' })).status,
      ).toBe(404);
    }
    const limited = await post(identity, '/identity/v1/device/approve', approver.session).send({
      userCode: 'ABCD-EFGH',
      organizationId: approver.organizationId,
      capabilities: ['identity.profile'],
    });
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({ status: 429, code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another user has their own bucket.
    const other = await seedApprover(identity);
    expect((await post(identity, '/identity/v1/device', other.session).send({ userCode: 'ABCD-EFGH' })).status).toBe(
      404,
    );
  });

  it('refuses an inspection body over 256 bytes', async () => {
    const approver = await seedApprover(identity);
    const padded = `{"userCode":"ABCD-EFGH"}${' '.repeat(240)}`;
    const res = await post(identity, '/identity/v1/device', approver.session)
      .set('content-type', 'application/json')
      .send(padded);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: 'request_invalid' });
    const fits = await post(identity, '/identity/v1/device', approver.session)
      .set('content-type', 'application/json')
      .send(`{"userCode":"ABCD-EFGH"}${' '.repeat(200)}`);
    expect(fits.status).toBe(404);
  });

  it('needs a signed-in user for 35–37', async () => {
    const anonymous = await post(identity, '/identity/v1/device').send({ userCode: 'ABCD-EFGH' });
    expect(anonymous.status).toBe(401);
  });

  it('lets the device-code holder cancel; the client then gets invalid_grant; device_code_holder limits it', async () => {
    const started = await startDevice(identity);
    const cancelled = await post(identity, '/identity/v1/device/cancel').send({ deviceCode: started.device_code });
    expect({ status: cancelled.status, body: cancelled.body }).toEqual({ status: 200, body: { ok: true } });
    expect((await pollToken(identity, started.device_code)).body.error).toBe('invalid_grant');
    const again = await post(identity, '/identity/v1/device/cancel').send({ deviceCode: started.device_code });
    expect(again.status).toBe(404);
    // The bucket is shared with /oauth/revoke (per peer): 3 requests per window here, this is the third.
    const third = await postForm(identity, '/oauth/revoke', { token: 'x', client_id: 'tessera-cli' });
    expect(third.status).toBe(200);
    const limitedCancel = await post(identity, '/identity/v1/device/cancel').send({ deviceCode: started.device_code });
    expect({ status: limitedCancel.status, code: limitedCancel.body.error.code }).toEqual({
      status: 429,
      code: 'rate_limited',
    });
    expect(Number(limitedCancel.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const limitedRevoke = await postForm(identity, '/oauth/revoke', { token: 'x', client_id: 'tessera-cli' });
    expect(limitedRevoke.status).toBe(429);
  });
});
