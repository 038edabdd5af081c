import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { IdentityInvitations, type InvitationDelivery } from '@tessera/identity';
import { bootIdentityApp, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import {
  deleteAs,
  seedMember,
  seedOrganization,
  tenantRows,
  withoutRequestId,
  type SeededMember,
} from '../../support/tenant-seed.js';

const START = '2026-07-14T08:15:30Z';
const PREVIEW = '/identity/v1/invitations/preview';
const ENROLL = '/identity/v1/invitations/enroll';
const INVALID = { code: 'invalid_credentials', message: 'Authentication failed', retryable: false };
const invitationsOf = (organizationId: string) => `/identity/v1/organizations/${organizationId}/invitations`;

/** A sink that records what it is handed; `mode` makes it fail or never settle. */
class RecordingSink {
  readonly deliveries: InvitationDelivery[] = [];
  mode: 'deliver' | 'throw' | 'reject' | 'hang' = 'deliver';

  deliverInvitation(input: InvitationDelivery): Promise<void> {
    this.deliveries.push(input);
    if (this.mode === 'throw') throw new Error('smtp down: secret-smtp-password');
    if (this.mode === 'reject') return Promise.reject(new Error('mailbox full'));
    if (this.mode === 'hang') return new Promise(() => undefined);
    return Promise.resolve();
  }
}

/** The token of a delivered enrolment link (the part after `#token=`). */
function tokenOf(delivery: InvitationDelivery): string {
  const url = new URL(delivery.enrollUrl);
  expect(`${url.origin}${url.pathname}`).toBe(`${TEST_ORIGIN}/identity/enroll`);
  expect(url.search).toBe('');
  return decodeURIComponent(url.hash.slice('#token='.length));
}

/** An organization named Acme, with Ada Lovelace as its admin. */
async function acme(identity: IdentityTestApp): Promise<{ organizationId: string; admin: SeededMember }> {
  const organizationId = await seedOrganization(identity);
  const admin = await seedMember(identity, organizationId, 'admin');
  const rows = tenantRows(identity);
  await rows.sql(`update tessera_identity.organizations set name = 'Acme' where id = ?`, [organizationId]);
  await rows.sql(`update tessera_identity.users set display_name = 'Ada Lovelace' where id = ?`, [admin.userId]);
  return { organizationId, admin };
}

describe('invitations delivered through notificationSink.deliverInvitation (issue 17)', () => {
  const sink = new RecordingSink();
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;

  beforeAll(async () => {
    identity = await bootIdentityApp({}, START, {
      notificationSink: sink,
      invitations: { deliveryTimeoutMs: 300 },
    });
    ({ organizationId, admin } = await acme(identity));
  });
  afterAll(async () => identity?.close());
  beforeEach(() => {
    sink.mode = 'deliver';
    sink.deliveries.length = 0;
  });

  const invite = (email: string, role = 'publisher') =>
    post(identity, invitationsOf(organizationId), admin.session).send({ email, role });

  const invitationRow = (email: string) =>
    tenantRows(identity).sql(
      'select id, state from tessera_identity.invitations where organization_id = ? and email = ? order by created_at, id',
      [organizationId, email],
    );

  it('delivers the enrolment link with names instead of answering the token; the delivered link enrols', async () => {
    const res = await invite('grace@example.com');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['delivered', 'invitation']);
    expect(res.body.delivered).toBe(true);
    expect(sink.deliveries).toHaveLength(1);
    const [delivery] = sink.deliveries;
    expect(delivery).toEqual({
      invitationId: res.body.invitation.id,
      organizationId,
      email: 'grace@example.com',
      organizationName: 'Acme',
      inviterDisplayName: 'Ada Lovelace',
      role: 'publisher',
      enrollUrl: expect.stringMatching(/^http:\/\/localhost:3000\/identity\/enroll#token=[A-Za-z0-9_-]{43}$/),
      expiresAt: new Date('2026-07-21T08:15:30Z'),
    });
    const token = tokenOf(delivery!);
    expect(res.text).not.toContain(token);

    const preview = await post(identity, PREVIEW).send({ token });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      organizationName: 'Acme',
      role: 'publisher',
      inviterDisplayName: 'Ada Lovelace',
      expiresAt: '2026-07-21T08:15:30Z',
    });
    const enrolled = await post(identity, ENROLL).send({ token, displayName: 'Grace Hopper' });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body.membership).toMatchObject({ organizationId, role: 'publisher' });

    const audits = await tenantRows(identity).sql(
      `select action, outcome, reason_code from tessera_identity.audit_events where target_id = ? order by occurred_at, id`,
      [res.body.invitation.id],
    );
    expect(audits.map((a) => a['action']).sort()).toEqual([
      'invitation.accepted',
      'invitation.created',
      'invitation.delivered',
    ]);
  });

  it.each(['throw', 'reject', 'hang'] as const)(
    'a sink that fails (%s) revokes the invitation and answers 503; the link never works and a new invitation can follow',
    async (mode) => {
      sink.mode = mode;
      const email = `failed-${mode}@example.com`;
      const res = await invite(email);
      expect([res.status, res.body.error?.code]).toEqual([503, 'service_unavailable']);
      expect(res.text).not.toContain('smtp');
      expect(sink.deliveries).toHaveLength(1);
      const token = tokenOf(sink.deliveries[0]!);
      expect(await invitationRow(email)).toEqual([{ id: sink.deliveries[0]!.invitationId, state: 'revoked' }]);
      const [revoked] = await tenantRows(identity).sql(
        `select outcome, reason_code from tessera_identity.audit_events where action = 'invitation.revoked' and target_id = ?`,
        [sink.deliveries[0]!.invitationId],
      );
      expect(revoked).toEqual({ outcome: 'succeeded', reason_code: 'delivery_failed' });
      const preview = await post(identity, PREVIEW).send({ token });
      expect([preview.status, withoutRequestId(preview.body)]).toEqual([401, INVALID]);

      sink.mode = 'deliver';
      const again = await invite(email);
      expect(again.status).toBe(201);
      expect((await invitationRow(email)).map((row) => row['state']).sort()).toEqual(['pending', 'revoked']);
    },
  );

  it('answers the token as well with invitations.returnTokenWithSink', async () => {
    const both = await bootIdentityApp({}, START, {
      notificationSink: sink,
      invitations: { returnTokenWithSink: true, enrollPath: '/join' },
    });
    try {
      const { organizationId: org, admin: by } = await acme(both);
      const res = await post(both, invitationsOf(org), by.session).send({ email: 'lin@example.com', role: 'viewer' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['delivered', 'invitation', 'token']);
      expect(sink.deliveries.at(-1)!.enrollUrl).toBe(`${TEST_ORIGIN}/join#token=${res.body.token}`);
    } finally {
      await both.close();
    }
  });
});

describe('POST /identity/v1/invitations/preview (issue 17)', () => {
  let identity: IdentityTestApp;
  let organizationId: string;
  let admin: SeededMember;

  beforeAll(async () => {
    identity = await bootIdentityApp({ rateLimits: { invitation_enroll: { limit: 1000, windowSeconds: 60 } } }, START);
    ({ organizationId, admin } = await acme(identity));
  });
  afterAll(async () => identity?.close());
  afterEach(() => identity.clock.set(new Date(START)));

  async function invite(email: string, role = 'publisher'): Promise<{ id: string; token: string }> {
    const res = await post(identity, invitationsOf(organizationId), admin.session).send({ email, role });
    expect(res.status).toBe(201);
    return { id: res.body.invitation.id, token: res.body.token };
  }

  const preview = (token: unknown) => post(identity, PREVIEW).send({ token });

  it('names the organization, role, inviter and expiry, and writes nothing', async () => {
    const { token } = await invite('ines@example.com', 'admin');
    const audits = await tenantRows(identity).count('audit_events');
    const res = await preview(token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      organizationName: 'Acme',
      role: 'admin',
      inviterDisplayName: 'Ada Lovelace',
      expiresAt: '2026-07-21T08:15:30Z',
    });
    expect(await tenantRows(identity).count('audit_events')).toBe(audits);
    expect(
      (
        await tenantRows(identity).sql('select state from tessera_identity.invitations where email = ?', [
          'ines@example.com',
        ])
      )[0],
    ).toEqual({ state: 'pending' });
  });

  it('says null for the inviter of a system-issued invitation', async () => {
    const created = await identity.app.get(IdentityInvitations).create({
      organizationId,
      email: 'system@example.com',
      role: 'viewer',
      invitedByUserId: null,
    });
    const res = await preview(created.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ inviterDisplayName: null, role: 'viewer', organizationName: 'Acme' });
  });

  it('answers the same 401 as enrolment for a malformed, unknown, revoked, expired or used token', async () => {
    const revoked = await invite('revoked@example.com');
    const revokedRes = await deleteAs(identity, `${invitationsOf(organizationId)}/${revoked.id}`, admin.session);
    expect(revokedRes.status).toBe(200);
    const used = await invite('used@example.com');
    expect((await post(identity, ENROLL).send({ token: used.token, displayName: 'Used' })).status).toBe(201);
    const expired = await invite('expired@example.com');
    const unknown = 'A'.repeat(43);
    const malformed = 'not a token at all, but long enough';
    identity.clock.advance({ days: 7 });
    for (const token of [malformed, unknown, revoked.token, used.token, expired.token]) {
      const res = await preview(token);
      const enroll = await post(identity, ENROLL).send({ token, displayName: 'Nobody' });
      expect([res.status, withoutRequestId(res.body)]).toEqual([401, INVALID]);
      expect([enroll.status, withoutRequestId(enroll.body)]).toEqual([401, INVALID]);
    }
    for (const body of [{}, { token: 'short' }, { token: unknown, extra: 1 }])
      expect((await post(identity, PREVIEW).send(body)).status).toBe(400);
  });

  it('is rate limited with invitation_enroll, per peer, sharing its bucket with enrolment', async () => {
    const limited = await bootIdentityApp(
      { rateLimits: { invitation_enroll: { limit: 3, windowSeconds: 60 } } },
      START,
    );
    try {
      const unknown = 'B'.repeat(43);
      for (let i = 0; i < 2; i++) expect((await post(limited, PREVIEW).send({ token: unknown })).status).toBe(401);
      expect((await post(limited, ENROLL).send({ token: unknown, displayName: 'X' })).status).toBe(401);
      const denied = await post(limited, PREVIEW).send({ token: unknown });
      expect([denied.status, denied.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(denied.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });
});
