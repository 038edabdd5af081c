import { describe, it, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { AuditEventBuilder } from '../audit/audit-event.builder.js';
import { decideCapability, decideOrganization } from '../guards/identity-decisions.js';
import { CompositeBearerResolver, type BearerRequest, type BearerResolver } from '../http/bearer-credential.js';
import { FrozenClock } from '../runtime/frozen.clock.js';
import { createKeyRing } from '../runtime/key-ring.resolver.js';
import { createNodeCryptoRandom } from '../runtime/node-random.source.js';
import type { IdentityDevicePort } from '../store/identity-device.port.js';
import type { DeviceAccessGrant } from '../store/identity-device.records.js';
import type { AuditEventInput } from '../store/identity-records.js';
import { issueDeviceToken } from '../tokens/device-token.format.js';
import { buildDeviceContext, DeviceAccessTokenResolver, requireDeviceScope } from './device-bearer.resolver.js';

const NOW = new Date('2026-07-14T08:15:30Z');
const ORG = '01890000-0000-7000-8000-000000000001';
const OTHER = '01890000-0000-7000-8000-000000000002';
const runtime = { clock: new FrozenClock(NOW.toISOString()), random: createNodeCryptoRandom() };
const ring = createKeyRing({ version: 'v1', reference: 'memory:device', key: randomBytes(32) });
const later = (ms: number) => new Date(NOW.getTime() + ms);

function grantFor(tokenDigest = issueDeviceToken('access', runtime, ring).tokenDigest): DeviceAccessGrant {
  const organization = { id: ORG, name: 'Acme', slug: 'acme', state: 'active' };
  const user = { id: 'user-1', state: 'active' };
  const membership = { id: 'm-1', organizationId: ORG, userId: 'user-1', state: 'active', version: 2, role: 'admin' };
  return {
    accessToken: { id: 'a', familyId: 'f-1', tokenDigest, state: 'active', expiresAt: later(60_000) },
    family: {
      id: 'f-1',
      deviceGrantId: 'g-1',
      clientId: 'tessera-cli',
      organizationId: ORG,
      userId: 'user-1',
      membershipId: 'm-1',
      membershipVersion: 2,
      capabilities: ['identity.profile', 'package.publish'],
      state: 'active',
      expiresAt: later(86_400_000),
    },
    user,
    organization,
    membership,
    standing: 'current',
  } as unknown as DeviceAccessGrant;
}

/** A store answering `grant` for the issued token's selector, recording revocations. */
function storeWith(grant: (selector: string) => DeviceAccessGrant | null) {
  const revoked: { reason: string; audit: AuditEventInput }[] = [];
  const store: Pick<IdentityDevicePort, 'findDeviceAccessGrant' | 'revokeDeviceTokenFamily'> = {
    findDeviceAccessGrant: async (selector) => grant(selector),
    revokeDeviceTokenFamily: async (input) => {
      const family = grant('')!.family;
      revoked.push({ reason: input.reason, audit: input.audit(family) });
      return { ok: true, value: { family: { ...family, state: 'revoked' }, changed: true } };
    },
  };
  return { store, revoked };
}

const audit: Pick<AuditEventBuilder, 'event'> = {
  event: (_exchange, occurredAt, facts) => ({ ...facts, occurredAt }) as unknown as AuditEventInput,
};
const request = (token: string, organizationId?: string): BearerRequest => ({
  token,
  organizationId,
  requestId: 'req_x',
  requestTime: NOW,
});

describe('device access tokens as bearers (identity-http §2.1, identity-model §5.5)', () => {
  it('resolves a valid token to a device principal of its family: user id, device_token, the approved scopes', async () => {
    const issued = issueDeviceToken('access', runtime, ring);
    const { store } = storeWith(() => grantFor(issued.tokenDigest));
    const result = await new DeviceAccessTokenResolver(store, ring, audit).resolve(request(issued.token));
    expect(result.ok).toBe(true);
    const context = result.ok ? result.context : undefined;
    expect(context?.principal).toEqual({
      kind: 'device',
      id: 'user-1',
      assurance: 'device_token',
      authenticationMethod: 'device_token',
      directCapabilities: ['identity.profile', 'package.publish'],
      roles: [],
    });
    expect(context?.session).toBeUndefined();
    expect(context?.membership).toBeUndefined();
    expect(context?.role).toBeUndefined();
    expect(context?.device).toEqual({
      familyId: 'f-1',
      clientId: 'tessera-cli',
      organization: grantFor().organization,
    });
  });

  it('refuses a wrong secret, an unknown selector, a revoked or expired token and a revoked or expired family', async () => {
    const issued = issueDeviceToken('access', runtime, ring);
    const other = issueDeviceToken('access', runtime, ring);
    const base = grantFor(issued.tokenDigest);
    const variants: (DeviceAccessGrant | null)[] = [
      null,
      grantFor(other.tokenDigest),
      { ...base, accessToken: { ...base.accessToken, state: 'revoked' } },
      { ...base, accessToken: { ...base.accessToken, expiresAt: NOW } },
      { ...base, family: { ...base.family, state: 'revoked' } },
      { ...base, family: { ...base.family, expiresAt: NOW } },
    ];
    for (const variant of variants) {
      const { store, revoked } = storeWith(() => variant);
      const result = await new DeviceAccessTokenResolver(store, ring, audit).resolve(request(issued.token));
      expect(result).toEqual({ ok: false, code: 'invalid_credentials' });
      expect(revoked).toEqual([]);
    }
    const refresh = issueDeviceToken('refresh', runtime, ring);
    const { store } = storeWith(() => grantFor(refresh.tokenDigest));
    // A refresh token's digest never verifies as an access token.
    expect(await new DeviceAccessTokenResolver(store, ring, audit).resolve(request(refresh.token))).toEqual({
      ok: false,
      code: 'invalid_credentials',
    });
  });

  it('revokes the family on membership drift and refuses the bearer', async () => {
    const issued = issueDeviceToken('access', runtime, ring);
    const base = grantFor(issued.tokenDigest);
    const drifts: DeviceAccessGrant[] = [
      { ...base, standing: 'membership_changed' },
      // The resolver applies the rule itself too: a stale `current` never admits a changed membership.
      { ...base, membership: { ...base.membership!, version: 3 } },
      { ...base, membership: null },
      { ...base, organization: { ...base.organization, state: 'deleted' } },
      { ...base, user: { ...base.user, state: 'suspended' } },
    ];
    for (const drift of drifts) {
      const { store, revoked } = storeWith(() => drift);
      const result = await new DeviceAccessTokenResolver(store, ring, audit).resolve(request(issued.token));
      expect(result).toEqual({ ok: false, code: 'invalid_credentials' });
      expect(revoked).toHaveLength(1);
      expect(revoked[0]!.reason).toBe('membership_authorization_changed');
      expect(revoked[0]!.audit).toMatchObject({
        action: 'device_token.revoked',
        organizationId: ORG,
        target: { type: 'device_grant', id: 'g-1' },
        reasonCode: 'membership_authorization_changed',
      });
    }
  });

  it('answers service_unavailable when the store fails, at the read or at the drift revocation', async () => {
    const issued = issueDeviceToken('access', runtime, ring);
    const failing: Pick<IdentityDevicePort, 'findDeviceAccessGrant' | 'revokeDeviceTokenFamily'> = {
      findDeviceAccessGrant: async () => {
        throw new Error('down');
      },
      revokeDeviceTokenFamily: async () => ({ ok: false, code: 'unavailable' }),
    };
    const resolver = new DeviceAccessTokenResolver(failing, ring, audit);
    expect(await resolver.resolve(request(issued.token))).toEqual({ ok: false, code: 'service_unavailable' });
    const drifted = { ...grantFor(issued.tokenDigest), standing: 'membership_changed' as const };
    const revokeFails = new DeviceAccessTokenResolver(
      { ...failing, findDeviceAccessGrant: async () => drifted },
      ring,
      audit,
    );
    expect(await revokeFails.resolve(request(issued.token))).toEqual({ ok: false, code: 'service_unavailable' });
  });

  it('scopes the principal to its own organization: the route’s when it is the family’s, none in another one', () => {
    const grant = grantFor();
    const own = buildDeviceContext(grant, request('t', ORG));
    expect(own.organization?.id).toBe(ORG);
    expect(decideOrganization(own, ORG)).toEqual({ allow: true });
    expect(decideCapability(own, 'package.publish')).toEqual({ allow: true });
    expect(decideCapability(own, 'audit.read')).toEqual({ allow: false, code: 'not_found' });
    const other = buildDeviceContext(grant, request('t', OTHER));
    expect(other.organization).toBeUndefined();
    expect(other.effectiveCapabilities.size).toBe(0);
    const none = buildDeviceContext(grant, request('t'));
    expect(none.organization).toBeUndefined();
    expect(decideOrganization(none)).toEqual({ allow: false, code: 'not_found' });
    expect([...none.effectiveCapabilities]).toEqual(['identity.profile', 'package.publish']);
    expect(() => requireDeviceScope(none, 'identity.profile')).not.toThrow();
    expect(() => requireDeviceScope(none, 'identity.organizations')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
  });
});

describe('CompositeBearerResolver', () => {
  const answering = (answer: Awaited<ReturnType<BearerResolver['resolve']>>, calls: string[], name: string) => ({
    resolve: async () => {
      calls.push(name);
      return answer;
    },
  });
  const context = buildDeviceContext(grantFor(), request('t'));

  it('tries each kind in order until one accepts; none → invalid_credentials', async () => {
    const calls: string[] = [];
    const composite = new CompositeBearerResolver([
      answering({ ok: false, code: 'invalid_credentials' }, calls, 'device'),
      answering({ ok: true, context }, calls, 'service'),
    ]);
    expect(await composite.resolve(request('t'))).toEqual({ ok: true, context });
    expect(calls).toEqual(['device', 'service']);
    const neither = new CompositeBearerResolver([
      answering({ ok: false, code: 'invalid_credentials' }, [], 'device'),
      answering({ ok: false, code: 'invalid_credentials' }, [], 'service'),
    ]);
    expect(await neither.resolve(request('t'))).toEqual({ ok: false, code: 'invalid_credentials' });
  });

  it('answers an outage at once, without trying the other kind; a device success stops too', async () => {
    const calls: string[] = [];
    const outage = new CompositeBearerResolver([
      answering({ ok: false, code: 'service_unavailable' }, calls, 'device'),
      answering({ ok: true, context }, calls, 'service'),
    ]);
    expect(await outage.resolve(request('t'))).toEqual({ ok: false, code: 'service_unavailable' });
    expect(calls).toEqual(['device']);
    const first: string[] = [];
    await new CompositeBearerResolver([
      answering({ ok: true, context }, first, 'device'),
      answering({ ok: true, context }, first, 'service'),
    ]).resolve(request('t'));
    expect(first).toEqual(['device']);
  });
});
