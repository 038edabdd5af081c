import request from 'supertest';
import type { Response } from 'supertest';
import type { ScimGroupRoleRule } from '@tessera/identity';
import { TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';
import type { TestSession } from '../../support/passkey-client.js';
import { getAs, seedMember, seedOrganization, tenantRows, type SeededMember } from '../../support/tenant-seed.js';

export { tenantRows };

/** The SCIM media type every answer carries. */
export const SCIM_TYPE = 'application/scim+json; charset=utf-8';
/** The Tessera extension of a User that names the identity user it provisions. */
export const IDENTITY_EXTENSION = 'urn:tessera:params:scim:schemas:extension:identity:1.0:User';

/** An organization with an owner (recent passkey) and an active SCIM connection. */
export interface ScimTenantFixture {
  readonly organizationId: string;
  readonly owner: SeededMember;
  readonly connectionId: string;
  readonly token: string;
}

/**
 * A POST to an identity route as a signed-in member (cookie, `Origin`, CSRF token), JSON body.
 *
 * @example
 * await postAs(identity, `/identity/v1/organizations/${orgId}/scim/connections`, owner.session, body);
 */
export function postAs(identity: IdentityTestApp, path: string, session: TestSession, body?: unknown) {
  const req = request(identity.app.getHttpServer())
    .post(path)
    .set('origin', TEST_ORIGIN)
    .set('cookie', session.cookie)
    .set('x-csrf-token', session.csrfToken);
  return body === undefined ? req : req.set('content-type', 'application/json').send(JSON.stringify(body));
}

/**
 * Creates a SCIM connection over the identity route as `session`.
 *
 * @example
 * const { token } = await createConnection(identity, orgId, owner.session, 'okta', []);
 */
export async function createConnection(
  identity: IdentityTestApp,
  organizationId: string,
  session: TestSession,
  providerName: string,
  groupRoles: readonly ScimGroupRoleRule[] = [],
): Promise<Response> {
  return postAs(identity, `/identity/v1/organizations/${organizationId}/scim/connections`, session, {
    providerName,
    groupRoles,
  });
}

/**
 * A fresh organization, its owner and a SCIM connection with `groupRoles`.
 *
 * @example
 * const tenant = await scimTenant(identity, 'okta', [{ match: { displayName: 'Admins' }, role: 'admin' }]);
 */
export async function scimTenant(
  identity: IdentityTestApp,
  providerName = 'okta',
  groupRoles: readonly ScimGroupRoleRule[] = [],
): Promise<ScimTenantFixture> {
  const organizationId = await seedOrganization(identity);
  const owner = await seedMember(identity, organizationId, 'owner');
  const res = await createConnection(identity, organizationId, owner.session, providerName, groupRoles);
  if (res.status !== 201) throw new Error(`connection create failed: ${res.status} ${res.text}`);
  return { organizationId, owner, connectionId: res.body.connection.id, token: res.body.token };
}

/** A SCIM request with the tenant's bearer token (and a SCIM body when given). */
export function scim(
  identity: IdentityTestApp,
  token: string,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  let req = request(identity.app.getHttpServer())[method](path).set('authorization', `Bearer ${token}`);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  if (body !== undefined) {
    req = req.set('content-type', headers['content-type'] ?? 'application/scim+json').send(JSON.stringify(body));
  }
  return req;
}

/** A SCIM PatchOp body. */
export function patchOp(...operations: readonly Record<string, unknown>[]) {
  return { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: operations };
}

/** A minimal SCIM User body. */
export function scimUser(userName: string, extra: Record<string, unknown> = {}) {
  return { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, active: true, ...extra };
}

/**
 * The membership of an identity user in the organization, read over the identity route as `session`.
 *
 * @example
 * expect(await membershipOf(identity, orgId, owner.session, userId)).toMatchObject({ role: 'admin', state: 'active' });
 */
export async function membershipOf(
  identity: IdentityTestApp,
  organizationId: string,
  session: TestSession,
  userId: string,
): Promise<{ role: string; state: string } | undefined> {
  const res = await getAs(identity, `/identity/v1/organizations/${organizationId}/memberships`, session);
  if (res.status !== 200) throw new Error(`memberships failed: ${res.status}`);
  return (res.body as { userId: string; role: string; state: string }[]).find((entry) => entry.userId === userId);
}
