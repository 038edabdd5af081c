import type { CapabilityResolver, IdentityConfig } from '@tessera/identity';
import request from 'supertest';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { post } from '../../support/passkey-client.js';
import { seedMember, seedOrganization, tenantRows, type SeededMember } from '../../support/tenant-seed.js';

/** The application grant of the device test apps, as the demo's: publishers and above may publish. */
export const PUBLISHERS: CapabilityResolver = {
  resolve: ({ role }) => (role === 'viewer' ? [] : ['package.publish']),
};

/** The device allowlist of the device test apps. */
export const DEVICE_CAPABILITIES = ['identity.organizations', 'identity.profile', 'package.publish'] as const;
export const CLIENT_ID = 'tessera-cli';

/**
 * A device test app: the allowlist above, the given rate limits and configuration, and the
 * application grant {@link PUBLISHERS} (or the given resolvers).
 */
export function bootDeviceApp(
  rateLimits: Record<string, { limit: number; windowSeconds: number }> = {},
  over: { config?: Partial<IdentityConfig>; resolvers?: CapabilityResolver[] } = {},
) {
  return bootIdentityApp(
    { capabilities: { device: [...DEVICE_CAPABILITIES], service: [] }, rateLimits, ...over.config },
    undefined,
    { capabilityResolvers: over.resolvers ?? [PUBLISHERS] },
  );
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
 * Inspects and then approves or denies the grant of `userCode` as `approver`'s session, over HTTP
 * through routes 35–37 (the confirmation screen first, as the approval needs it).
 */
export async function decide(
  identity: IdentityTestApp,
  userCode: string,
  approver: SeededMember & { organizationId: string },
  decision: { approve: readonly string[] } | 'deny',
): Promise<void> {
  const inspected = await post(identity, '/identity/v1/device', approver.session).send({ userCode });
  if (inspected.status !== 200) throw new Error(`inspect failed: ${inspected.status} ${inspected.text}`);
  const decided =
    decision === 'deny'
      ? await post(identity, '/identity/v1/device/deny', approver.session).send({ userCode })
      : await post(identity, '/identity/v1/device/approve', approver.session).send({
          userCode,
          organizationId: approver.organizationId,
          capabilities: decision.approve,
        });
  if (decided.status !== 200) throw new Error(`decision failed: ${decided.status} ${decided.text}`);
}

/** Rows of one table of the identity schema matching `where`. */
export async function rowsOf(
  identity: IdentityTestApp,
  sql: string,
  params: unknown[],
): Promise<Record<string, unknown>[]> {
  return tenantRows(identity).sql(sql, params);
}

/** Cancels the grant of `deviceCode` over HTTP (route 38), as its holder. */
export async function cancelDevice(identity: IdentityTestApp, deviceCode: string): Promise<void> {
  const cancelled = await post(identity, '/identity/v1/device/cancel').send({ deviceCode });
  if (cancelled.status !== 200) throw new Error(`cancel failed: ${cancelled.status} ${cancelled.text}`);
}
