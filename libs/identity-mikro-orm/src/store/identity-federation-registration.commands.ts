import type {
  FederationProviderEntry,
  FederationRegistrationChange,
  IdentityFederationCommands,
  StoreFailureCode,
} from '@tessera/identity';
import { abort, isUuid, table, type Sql, type StoreGateway } from './identity-store.gateway.js';
import { allColumns } from './identity-row.fields.js';
import { textArrayLiteral } from './identity-row.columns.js';
import { registrationColumns, registrationFromRow } from './identity-federation.rows.js';
import { providerEntries } from './identity-federation.reads.js';
import { insertControlIfAbsent, lockControl, toggleControl } from './identity-federation.commands.js';
import { insertAudit } from './identity-session.commands.js';

type Input<K extends keyof IdentityFederationCommands> = Parameters<IdentityFederationCommands[K]>[0];
type Output<K extends keyof IdentityFederationCommands> = ReturnType<IdentityFederationCommands[K]>;

/** The `set` list and parameters of a registration change (only the fields it names). */
function registrationUpdate(change: FederationRegistrationChange): { set: string[]; params: unknown[] } {
  const set: string[] = [];
  const params: unknown[] = [];
  const assign = (column: string, value: unknown) => {
    set.push(`${column} = ?`);
    params.push(value);
  };
  if (change.displayName !== undefined) assign('display_name', change.displayName);
  if (change.jit !== undefined) assign('jit', change.jit);
  if (change.clientId !== undefined) assign('client_id', change.clientId);
  if (change.clientSecretCiphertext !== undefined) assign('client_secret_ciphertext', change.clientSecretCiphertext);
  if (change.ssoUrl !== undefined) assign('sso_url', change.ssoUrl);
  if (change.idpCertificatesPem !== undefined)
    assign('idp_certificates_pem', textArrayLiteral(change.idpCertificatesPem));
  if (change.signaturePolicy !== undefined) assign('signature_policy', change.signaturePolicy);
  return { set, params };
}

/** Why a CAS on a registration matched no row: missing → `not_found`, else `version_conflict`. */
async function classifyRegistrationMiss(
  sql: Sql,
  organizationId: string,
  providerId: string,
): Promise<StoreFailureCode> {
  const [row] = await sql(
    `select version from ${table('federation_provider_registrations')} where organization_id = ? and provider_id = ?`,
    [organizationId, providerId],
  );
  return row === undefined ? 'not_found' : 'version_conflict';
}

/** Active links through `storageKey`. */
async function linkedIdentities(sql: Sql, storageKey: string): Promise<number> {
  const [row] = await sql(
    `select count(*)::int as linked from ${table('external_identities')} where provider = ? and state = 'active'`,
    [storageKey],
  );
  return Number(row?.['linked'] ?? 0);
}

/** The entry of (organization, provider) as the transaction sees it now. */
async function entryOf(sql: Sql, organizationId: string, providerId: string): Promise<FederationProviderEntry> {
  const [entry] = await providerEntries(sql, organizationId, providerId);
  return entry ?? abort('internal');
}

/**
 * Organization-managed provider registrations (issue 14), each one READ COMMITTED transaction with
 * its audits. A registration and its control move together: creating enables (or creates) the
 * control, deleting disables it (epoch + 1), so a provider without a registration never signs
 * anyone in again until it is registered again with the same storage key. The registration row is
 * taken first, then the control `FOR UPDATE`.
 *
 * @example
 * const entry = await handlers.createFederationRegistration({ registration, at, audits: (entry) => [audit] });
 */
export class IdentityFederationRegistrationCommandHandlers implements Pick<
  IdentityFederationCommands,
  'createFederationRegistration' | 'updateFederationRegistration' | 'deleteFederationRegistration'
> {
  constructor(private readonly gateway: StoreGateway) {}

  createFederationRegistration(input: Input<'createFederationRegistration'>): Output<'createFederationRegistration'> {
    const { registration, at, audits } = input;
    const { organizationId, providerId } = registration;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      const [organization] = await sql(`select state from ${table('organizations')} where id = ? for share`, [
        organizationId,
      ]);
      if (organization === undefined || organization['state'] !== 'active') abort('not_found');
      const columns = registrationColumns(registration, at);
      const names = Object.keys(columns);
      const [inserted] = await sql(
        `insert into ${table('federation_provider_registrations')} (${names.map((c) => `"${c}"`).join(', ')})
         values (${names.map(() => '?').join(', ')})
         on conflict ("organization_id", "provider_id") do nothing
         returning organization_id`,
        names.map((c) => columns[c]),
      );
      if (inserted === undefined) abort('already_exists');
      const control = { organizationId, providerId, kind: registration.protocol, storageKey: registration.storageKey };
      const created = await insertControlIfAbsent(sql, control, 'enabled', null, at);
      if (created === null) {
        const existing = (await lockControl(sql, organizationId, providerId)) ?? abort('version_conflict');
        if (existing.kind !== control.kind || existing.storageKey !== control.storageKey) abort('already_exists');
        if (existing.state === 'disabled') {
          const enabled = await toggleControl(sql, {
            organizationId,
            providerId,
            expectedVersion: existing.version,
            target: 'enabled',
            reason: null,
            at,
          });
          if (enabled === null) abort('version_conflict');
        }
      }
      const entry = await entryOf(sql, organizationId, providerId);
      for (const audit of audits(entry)) await insertAudit(sql, audit);
      return entry;
    });
  }

  updateFederationRegistration(input: Input<'updateFederationRegistration'>): Output<'updateFederationRegistration'> {
    const { organizationId, providerId, expectedVersion, change, at, audit } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      const update = registrationUpdate(change);
      const [row] = await sql(
        `update ${table('federation_provider_registrations')}
            set ${[...update.set, 'updated_at = ?', 'version = version + 1'].join(', ')}
          where organization_id = ? and provider_id = ? and version = ?
        returning organization_id`,
        [...update.params, at, organizationId, providerId, expectedVersion],
      );
      if (row === undefined) abort(await classifyRegistrationMiss(sql, organizationId, providerId));
      const entry = await entryOf(sql, organizationId, providerId);
      await insertAudit(sql, audit(entry));
      return entry;
    });
  }

  deleteFederationRegistration(input: Input<'deleteFederationRegistration'>): Output<'deleteFederationRegistration'> {
    const { organizationId, providerId, expectedVersion, reason, at, audits } = input;
    return this.gateway.command(async (sql) => {
      if (!isUuid(organizationId)) abort('not_found');
      if (reason.length < 1 || reason.length > 200) abort('invalid_transition');
      const [row] = await sql(
        `delete from ${table('federation_provider_registrations')}
          where organization_id = ? and provider_id = ? and version = ?
        returning ${allColumns('federation_provider_registrations')}`,
        [organizationId, providerId, expectedVersion],
      );
      if (row === undefined) abort(await classifyRegistrationMiss(sql, organizationId, providerId));
      const registration = registrationFromRow(row);
      let control = await lockControl(sql, organizationId, providerId);
      if (control !== null && control.state === 'enabled') {
        control =
          (await toggleControl(sql, {
            organizationId,
            providerId,
            expectedVersion: control.version,
            target: 'disabled',
            reason,
            at,
          })) ?? abort('version_conflict');
      }
      // Links and receipts stay: a later registration with the same storage key finds them again.
      const entry: FederationProviderEntry = {
        registration,
        control,
        linkedIdentities: await linkedIdentities(sql, registration.storageKey),
      };
      for (const audit of audits(entry)) await insertAudit(sql, audit);
    });
  }
}
