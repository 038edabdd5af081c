import request from 'supertest';
// White-box: the device-code digests, to cancel a grant as its holder would (route 38 is not part of this change).
import {
  deviceCodeLookupDigests,
  parseDeviceCode,
  userCodeLookupDigests,
} from '../../../libs/identity/src/tokens/device-code.format.js';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { identityKernelOf } from '../../support/identity-kernel.js';
import { seedMember, seedOrganization, tenantRows, type SeededMember } from '../../support/tenant-seed.js';

/** The device allowlist of the device test apps. */
export const DEVICE_CAPABILITIES = ['identity.organizations', 'identity.profile', 'package.publish'] as const;
export const CLIENT_ID = 'tessera-cli';

/** A device test app: the allowlist above and the given rate limits. */
export function bootDeviceApp(rateLimits: Record<string, { limit: number; windowSeconds: number }> = {}) {
  return bootIdentityApp({ capabilities: { device: [...DEVICE_CAPABILITIES], service: [] }, rateLimits });
}

/** A POST of a form body (`application/x-www-form-urlencoded`) to an OAuth endpoint. */
export function postForm(identity: IdentityTestApp, path: string, form: Record<string, string> | string) {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return request(identity.app.getHttpServer())
    .post(path)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(body);
}

/** The RFC 6749 body of `error` with its fixed description. */
export function oauthError(error: string, description: string) {
  return { error, error_description: description };
}

/** Starts a device authorization over HTTP; answers the RFC 8628 §3.2 body. */
export async function startDevice(
  identity: IdentityTestApp,
  over: { client_id?: string; scope?: string } = {},
): Promise<{ device_code: string; user_code: string; interval: number; expires_in: number }> {
  const res = await postForm(identity, '/oauth/device_authorization', {
    client_id: over.client_id ?? CLIENT_ID,
    client_name: 'Tessera CLI',
    scope: over.scope ?? DEVICE_CAPABILITIES.join(' '),
  });
  if (res.status !== 200) throw new Error(`device authorization failed: ${res.status} ${res.text}`);
  return res.body;
}

/** One poll of the token endpoint with the device-code grant. */
export function pollToken(identity: IdentityTestApp, deviceCode: string, clientId = CLIENT_ID) {
  return postForm(identity, '/oauth/token', {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: deviceCode,
    client_id: clientId,
  });
}

/** One refresh of the token endpoint. */
export function refreshToken(identity: IdentityTestApp, refresh: string, clientId = CLIENT_ID) {
  return postForm(identity, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refresh,
    client_id: clientId,
  });
}

/** A publisher of a fresh organization with a passkey session (the approver). */
export async function seedApprover(identity: IdentityTestApp): Promise<SeededMember & { organizationId: string }> {
  const organizationId = await seedOrganization(identity);
  return { ...(await seedMember(identity, organizationId, 'publisher')), organizationId };
}

/**
 * Inspects and then approves or denies the grant of `userCode` as `approver`'s session, through
 * the store port (the confirmation routes 35–37 are not part of this change).
 */
export async function decide(
  identity: IdentityTestApp,
  userCode: string,
  approver: SeededMember & { organizationId: string },
  decision: { approve: readonly string[] } | 'deny',
): Promise<void> {
  const kernel = identityKernelOf(identity.app);
  const at = identity.clock.now();
  const [userCodeDigest] = userCodeLookupDigests(kernel.keys.devicePepper, userCode)!;
  const sessionId = approver.session.sessionId;
  const inspected = await kernel.store.inspectDeviceGrant({ userCodeDigest: userCodeDigest!, sessionId, at });
  if (!inspected.ok) throw new Error(`inspect failed: ${inspected.code}`);
  const audit = kernel.audit.event(undefined, at, {
    actor: { type: 'user', userId: approver.userId },
    action: 'device_grant.changed',
    target: { type: 'device_grant', id: inspected.value.id },
    reasonCode: decision === 'deny' ? 'device_authorization_denied' : 'device_authorization_approved',
  });
  const inspectedSince = new Date(at.getTime() - 600_000);
  const decided =
    decision === 'deny'
      ? await kernel.store.denyDeviceGrant({ userCodeDigest: userCodeDigest!, sessionId, inspectedSince, at, audit })
      : await kernel.store.authorizeDeviceGrant({
          userCodeDigest: userCodeDigest!,
          sessionId,
          inspectedSince,
          userId: approver.userId,
          organizationId: approver.organizationId,
          approvedCapabilities: decision.approve,
          at,
          audit,
        });
  if (!decided.ok) throw new Error(`decision failed: ${decided.code}`);
}

/** Rows of one table of the identity schema matching `where`. */
export async function rowsOf(
  identity: IdentityTestApp,
  sql: string,
  params: unknown[],
): Promise<Record<string, unknown>[]> {
  return tenantRows(identity).sql(sql, params);
}

/** Cancels the grant of `deviceCode` through the store port, as its holder. */
export async function cancelDevice(identity: IdentityTestApp, deviceCode: string): Promise<void> {
  const kernel = identityKernelOf(identity.app);
  const [deviceCodeDigest] = deviceCodeLookupDigests(kernel.keys.devicePepper, parseDeviceCode(deviceCode)!);
  const at = identity.clock.now();
  const cancelled = await kernel.store.cancelDeviceGrant({
    deviceCodeDigest: deviceCodeDigest!,
    at,
    audit: kernel.audit.event(undefined, at, {
      actor: { type: 'anonymous' },
      action: 'device_grant.changed',
      reasonCode: 'device_authorization_cancelled',
    }),
  });
  if (!cancelled.ok) throw new Error(`cancel failed: ${cancelled.code}`);
}
