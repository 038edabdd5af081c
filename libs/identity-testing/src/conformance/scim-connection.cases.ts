import { describe, expect, it } from '@jest/globals';
import type { ScimGroupRoleRule } from '@tessera/identity';
import { testDigest, testUuidV7 } from '../identity-test.rows.js';
import { unwrap, type ConformanceWorld } from './conformance.world.js';

const RULES: ScimGroupRoleRule[] = [
  { match: { displayName: 'Admins' }, role: 'admin' },
  { match: { externalId: '00g-pub' }, role: 'publisher' },
];

/**
 * Organization-managed SCIM connections (issue 15): one active connection per provider name,
 * token rotation with the overlap state, revocation of the connection and every token.
 */
export function scimConnectionCases(world: ConformanceWorld): void {
  const audit = (organizationId: string, action: string) => ({
    ...world.audit(action, { type: 'system' }),
    organizationId,
  });

  async function create(organizationId: string, providerName: string, groupRoles = RULES) {
    const at = world.tick();
    const token = { id: testUuidV7(at), secretDigest: testDigest() };
    const result = await world.store.createScimConnection({
      connection: { id: testUuidV7(at), organizationId, providerName, groupRoles },
      token,
      at,
      audit: audit(organizationId, 'scim.connection_created'),
    });
    return { result, token, at };
  }

  function rotate(organizationId: string, connectionId: string) {
    const at = world.tick();
    const token = { id: testUuidV7(at), secretDigest: testDigest() };
    const result = world.store.rotateScimConnectionToken({
      organizationId,
      connectionId,
      token,
      at,
      audit: audit(organizationId, 'scim.connection_rotated'),
    });
    return { result, token, at };
  }

  function revoke(organizationId: string, connectionId: string) {
    return world.store.revokeScimConnection({
      organizationId,
      connectionId,
      at: world.tick(),
      audit: audit(organizationId, 'scim.connection_revoked'),
    });
  }

  describe('SCIM connections', () => {
    it('creates an active connection with its rules and first token, one active per provider name', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const { result, token, at } = await create(organizationId, 'okta');
      const connection = unwrap(result);
      expect(connection).toMatchObject({
        organizationId,
        providerName: 'okta',
        groupRoles: RULES,
        state: 'active',
        revokedAt: null,
        tokenIssuedAt: at,
        version: 0,
      });
      expect(await world.store.findScimConnection(organizationId, connection.id)).toEqual(connection);
      expect(await world.store.listScimConnections(organizationId)).toEqual([connection]);
      const grant = await world.store.findScimConnectionGrant(token.id);
      expect(grant?.connection).toEqual(connection);
      expect(grant?.organization.id).toBe(organizationId);
      expect(grant?.token).toMatchObject({ id: token.id, state: 'active', secretDigest: token.secretDigest });

      expect((await create(organizationId, 'okta')).result).toEqual({ ok: false, code: 'unique_constraint' });
      unwrap((await create(organizationId, 'entra', [])).result);
      unwrap((await create(await world.rows.organization(), 'okta')).result);
      expect(await world.store.findScimConnection(await world.rows.organization(), connection.id)).toBeNull();
      expect(await world.store.findScimConnectionGrant('not-a-uuid')).toBeNull();
    });

    it('rotates the token: the old one is rotated (then revoked by the next rotation), the new one active', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const { result, token: first } = await create(organizationId, 'okta');
      const connection = unwrap(result);
      const second = rotate(organizationId, connection.id);
      const rotated = unwrap(await second.result);
      expect(rotated).toMatchObject({ tokenIssuedAt: second.at, version: 1, state: 'active' });
      expect((await world.store.findScimConnectionGrant(first.id))?.token).toMatchObject({
        state: 'rotated',
        rotatedAt: second.at,
      });
      expect((await world.store.findScimConnectionGrant(second.token.id))?.token.state).toBe('active');
      const third = rotate(organizationId, connection.id);
      unwrap(await third.result);
      expect((await world.store.findScimConnectionGrant(first.id))?.token.state).toBe('revoked');
      expect((await world.store.findScimConnectionGrant(second.token.id))?.token.state).toBe('rotated');
      expect((await world.store.findScimConnectionGrant(third.token.id))?.token.state).toBe('active');
    });

    it('revokes the connection and every token; a revoked connection can be neither revoked nor rotated again', async () => {
      const organizationId = await world.rows.organization({ at: world.tick() });
      const { result, token: first } = await create(organizationId, 'okta');
      const connection = unwrap(result);
      const second = rotate(organizationId, connection.id);
      unwrap(await second.result);
      expect(await revoke(await world.rows.organization(), connection.id)).toEqual({ ok: false, code: 'not_found' });
      const revoked = unwrap(await revoke(organizationId, connection.id));
      expect(revoked).toMatchObject({ state: 'revoked', version: 2 });
      expect(revoked.revokedAt).not.toBeNull();
      for (const id of [first.id, second.token.id])
        expect((await world.store.findScimConnectionGrant(id))?.token.state).toBe('revoked');
      expect(await revoke(organizationId, connection.id)).toEqual({ ok: false, code: 'invalid_transition' });
      expect(await rotate(organizationId, connection.id).result).toEqual({ ok: false, code: 'invalid_transition' });
      unwrap((await create(organizationId, 'okta')).result);
    });
  });
}
