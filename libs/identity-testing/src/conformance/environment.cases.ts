import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newTestSession, testAuditEvent, testUuidV7 } from '../identity-test.rows.js';
import { IdentityTestRows } from '../identity-test.seed.js';
import { TEST_MARKER, type IdentityStoreConformanceOptions, type IdentityStoreHarness } from './conformance.world.js';

const INTERNAL = { ok: false, code: 'internal' };
/** A definite refusal of an environment command, naming the marker check. */
const MARKER_REFUSED = { ...INTERNAL, refusal: 'environment_marker' };

/** Environment marker (identity-model §9.7): provisioning never overwrites, verification gates every operation. */
export function environmentCases(options: IdentityStoreConformanceOptions): void {
  describe('environment marker', () => {
    let harness: IdentityStoreHarness;
    let rows: IdentityTestRows;
    const at = new Date('2031-05-01T10:00:00.000Z');

    beforeAll(async () => {
      harness = await options.createStore();
      rows = new IdentityTestRows(harness.em);
    });

    afterAll(async () => {
      await harness?.close();
    });

    /** Asserts that reads reject and commands fail with `internal`, writing nothing. */
    async function expectRefused(): Promise<void> {
      const { store } = harness;
      const audits = await rows.count('audit_events');
      await expect(store.isEmpty()).rejects.toMatchObject({ code: 'internal' });
      await expect(store.findUser(testUuidV7(at))).rejects.toMatchObject({ code: 'internal' });
      await expect(store.listSessionsForUser(testUuidV7(at))).rejects.toMatchObject({ code: 'internal' });
      expect(await store.appendAuditEvent(testAuditEvent({ action: 'identity.tested', at }))).toEqual(INTERNAL);
      const userId = testUuidV7(at);
      expect(
        await store.rotateSession({
          sessionId: testUuidV7(at),
          expectedVersion: 0,
          expectedUserId: userId,
          replacement: newTestSession({ userId, at }),
          audit: testAuditEvent({ action: 'session.rotated', at }),
        }),
      ).toEqual(INTERNAL);
      expect(
        await store.revokeUserSessions({
          userId,
          exceptSessionId: null,
          reason: 'revoke_all',
          revokedAt: at,
          audit: testAuditEvent({ action: 'session.revoked', at }),
        }),
      ).toEqual(INTERNAL);
      expect(await rows.count('audit_events')).toBe(audits);
    }

    it('refuses every operation with internal while no marker exists and none was verified', async () => {
      await expectRefused();
      expect(await harness.store.verifyEnvironment(TEST_MARKER)).toEqual(MARKER_REFUSED);
      await expectRefused();
    });

    it('provisions the marker once, accepts an exact repeat, and then serves operations', async () => {
      expect(await harness.store.provisionEnvironment(TEST_MARKER)).toEqual({ ok: true, value: undefined });
      expect(await harness.store.provisionEnvironment(TEST_MARKER)).toEqual({ ok: true, value: undefined });
      expect(await rows.sql('select environment, namespace from tessera_identity.environment')).toEqual([
        { environment: 'test', namespace: 'tessera_test' },
      ]);
      expect(await harness.store.isEmpty()).toBe(true);
      expect(await harness.store.appendAuditEvent(testAuditEvent({ action: 'identity.tested', at }))).toEqual({
        ok: true,
        value: undefined,
      });
    });

    it('never overwrites a provisioned marker with another environment or namespace', async () => {
      const other = await harness.store.provisionEnvironment({ environment: 'test', namespace: 'other_test' });
      expect(other).toEqual(MARKER_REFUSED);
      const production = await harness.store.provisionEnvironment({
        environment: 'production',
        namespace: 'tessera_production',
      });
      expect(production).toEqual(MARKER_REFUSED);
      expect(await rows.sql('select environment, namespace from tessera_identity.environment')).toEqual([
        { environment: 'test', namespace: 'tessera_test' },
      ]);
      await expectRefused();
    });

    it('reports the schema version without opening or closing the store: behind, drift, newer, current', async () => {
      expect(await harness.store.verifyEnvironment(TEST_MARKER)).toEqual({ ok: true, value: undefined });
      expect(await harness.store.inspectSchemaVersion()).toBe('current');
      const [newest] = await rows.sql(
        `select module, version, checksum, applied_at from tessera_identity.schema_migrations
         where module = 'identity' order by version desc limit 1`,
      );
      const ledger = `tessera_identity.schema_migrations`;
      const where = [newest!['module'], newest!['version']];
      try {
        await rows.sql(`delete from ${ledger} where module = ? and version = ?`, where);
        expect(await harness.store.inspectSchemaVersion()).toBe('behind');
        // Still open: only verifyEnvironment decides whether the store serves.
        expect(await harness.store.isEmpty()).toBe(true);
        await rows.insert('schema_migrations', { ...newest!, checksum: '0'.repeat(64) });
        expect(await harness.store.inspectSchemaVersion()).toBe('drift');
        await rows.sql(`update ${ledger} set checksum = ? where module = ? and version = ?`, [
          newest!['checksum'],
          ...where,
        ]);
        await rows.insert('schema_migrations', { ...newest!, version: 'tessera_identity_29991231000000_future' });
        expect(await harness.store.inspectSchemaVersion()).toBe('newer');
      } finally {
        await rows.sql(`delete from ${ledger} where module = ? and version = ?`, [
          newest!['module'],
          'tessera_identity_29991231000000_future',
        ]);
      }
      expect(await harness.store.inspectSchemaVersion()).toBe('current');
      expect(await harness.store.isEmpty()).toBe(true);
    });

    it('refuses operations after a verification against a mismatched marker until the right one verifies', async () => {
      expect(await harness.store.verifyEnvironment(TEST_MARKER)).toEqual({ ok: true, value: undefined });
      expect(await harness.store.isEmpty()).toBe(true);
      expect(
        await harness.store.verifyEnvironment({ environment: 'development', namespace: 'tessera_development' }),
      ).toEqual(MARKER_REFUSED);
      await expectRefused();
      expect(await harness.store.verifyEnvironment(TEST_MARKER)).toEqual({ ok: true, value: undefined });
      expect(await harness.store.findUser(testUuidV7(at))).toBeNull();
    });
  });
}
