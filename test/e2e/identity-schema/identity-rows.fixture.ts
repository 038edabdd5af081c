import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/core';

/** A row as raw SQL sees it: snake_case column → value. */
export type Row = Record<string, unknown>;

/** Runs one statement (knex `?` placeholders) and returns its rows. */
export type Sql = (query: string, params?: unknown[]) => Promise<Row[]>;

/** Every table of `identity-model.md` §9.5 (plus `schema_migrations`), in dependency order. */
export const IDENTITY_TABLES = [
  'environment',
  'users',
  'organizations',
  'bootstrap_receipts',
  'schema_migrations',
  'memberships',
  'external_identities',
  'sessions',
  'credentials',
  'invitations',
  'service_identities',
  'service_credentials',
  'challenges',
  'recovery_codes',
  'device_grants',
  'device_grant_digest_reservations',
  'device_token_families',
  'device_access_tokens',
  'device_refresh_tokens',
  'device_token_credential_reservations',
  'external_replay_receipts',
  'federation_provider_controls',
  'federation_transactions',
  'audit_events',
  'scim_operations',
  'scim_batch_operations',
  'scim_groups',
  'rate_limit_buckets',
] as const;

/** One identity table name. */
export type IdentityTable = (typeof IDENTITY_TABLES)[number];

/** A canonical lower-case UUIDv7 (48-bit millisecond time + random bits). */
export function uuidV7(at = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Unpadded base64url of `size` random bytes (32 bytes → 43 chars, the stored digest shape). */
export function b64(size = 32): string {
  return randomBytes(size).toString('base64url');
}

/** A federation storage key of `kind`. */
export function storageKey(kind: 'oidc' | 'saml' = 'oidc'): string {
  return `${kind}.${b64()}`;
}

/** PostgreSQL array literal of `values` (elements quoted, `null` as NULL). */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  const element = (value: string | null) =>
    value === null ? 'NULL' : `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `{${values.map(element).join(',')}}`;
}

function token(): string {
  return randomBytes(4).toString('hex');
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/**
 * Builders of valid rows for every identity table, inserted with raw SQL. Each builder takes
 * column overrides; missing parents (users, organizations, grants, …) are created on the fly, so
 * a test names only the columns it is about.
 */
export class IdentityRows {
  constructor(
    private readonly sql: Sql,
    readonly now: Date = new Date('2031-05-01T10:00:00.000Z'),
  ) {}

  /** `now` shifted by `ms`. */
  at(ms: number): Date {
    return new Date(this.now.getTime() + ms);
  }

  /** Inserts `row` into `tessera_identity.<table>` and returns it. */
  async insert(table: string, row: Row): Promise<Row> {
    const columns = Object.keys(row);
    // knex expands an array binding into a value list, so arrays travel as text[] literals.
    const placeholders = columns.map((c) => (Array.isArray(row[c]) ? '?::text[]' : '?'));
    await this.sql(
      `insert into "tessera_identity"."${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${placeholders.join(', ')})`,
      columns.map((c) => (Array.isArray(row[c]) ? textArrayLiteral(row[c] as (string | null)[]) : row[c])),
    );
    return row;
  }

  /** Inserts a default row of `table` (the dispatcher used by table-driven tests). */
  async any(table: IdentityTable, over: Row = {}): Promise<Row> {
    return this[camel(table)](over);
  }

  environment(over: Row = {}): Promise<Row> {
    return this.insert('environment', {
      id: true,
      environment: 'test',
      namespace: 'tessera_test',
      created_at: this.now,
      ...over,
    });
  }

  async bootstrapReceipts(over: Row = {}): Promise<Row> {
    return this.insert('bootstrap_receipts', {
      id: true,
      digest_algorithm: 'sha256',
      digest_encoded: b64(),
      user_id: over.user_id ?? (await this.users()).id,
      organization_id: over.organization_id ?? (await this.organizations()).id,
      consumed_at: this.now,
      ...over,
    });
  }

  schemaMigrations(over: Row = {}): Promise<Row> {
    return this.insert('schema_migrations', {
      module: 'identity',
      version: `tessera_identity_${token()}`,
      checksum: randomBytes(32).toString('hex'),
      applied_at: this.now,
      ...over,
    });
  }

  users(over: Row = {}): Promise<Row> {
    return this.insert('users', {
      id: uuidV7(),
      primary_email: null,
      display_name: 'Ada Lovelace',
      state: 'active',
      session_epoch: 0,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  organizations(over: Row = {}): Promise<Row> {
    return this.insert('organizations', {
      id: uuidV7(),
      name: 'Acme',
      slug: `acme-${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      deleted_at: null,
      ...over,
    });
  }

  async memberships(over: Row = {}): Promise<Row> {
    return this.insert('memberships', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      user_id: over.user_id ?? (await this.users()).id,
      role: 'viewer',
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      removed_at: null,
      ...over,
    });
  }

  async externalIdentities(over: Row = {}): Promise<Row> {
    return this.insert('external_identities', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider: storageKey(),
      subject: `subject-${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** A full (passkey) session. */
  async sessions(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('sessions', {
      id,
      family_id: id,
      user_id: over.user_id ?? (await this.users()).id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      csrf_digest_algorithm: 'hmac-sha256',
      csrf_digest_encoded: b64(),
      csrf_digest_key_version: '1',
      state: 'active',
      assurance: 'passkey',
      authentication_method: 'passkey',
      federation_organization_id: null,
      federation_provider_key: null,
      federation_provider_session_epoch: null,
      external_identity_id: null,
      user_session_epoch: 0,
      rotation_counter: 0,
      rotated_to_id: null,
      label: null,
      platform: null,
      authenticated_at: this.now,
      last_used_at: this.now,
      idle_expires_at: this.at(DAY),
      absolute_expires_at: this.at(30 * DAY),
      revoked_at: null,
      revoked_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** Federation provenance columns of an `oidc` session of a fresh linked user. */
  async federation(over: Row = {}): Promise<Row> {
    const link = await this.externalIdentities();
    return {
      user_id: link.user_id,
      authentication_method: 'oidc',
      assurance: 'session',
      federation_organization_id: link.organization_id,
      federation_provider_key: link.provider,
      federation_provider_session_epoch: 0,
      external_identity_id: link.id,
      ...over,
    };
  }

  async credentials(over: Row = {}): Promise<Row> {
    return this.insert('credentials', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      web_authn_id: b64(),
      name: 'Laptop',
      public_key: randomBytes(77),
      sign_count: 0,
      backup_eligible: true,
      backed_up: false,
      transports: ['internal', 'hybrid'],
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      last_used_at: null,
      revoked_at: null,
      ...over,
    });
  }

  async invitations(over: Row = {}): Promise<Row> {
    return this.insert('invitations', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      email: `invitee-${token()}@example.test`,
      role: 'viewer',
      state: 'pending',
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      invited_by_user_id: null,
      accepted_by_user_id: null,
      accepted_at: null,
      revoked_at: null,
      expires_at: this.at(7 * DAY),
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  async serviceIdentities(over: Row = {}): Promise<Row> {
    return this.insert('service_identities', {
      id: uuidV7(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      name: `ci-${token()}`,
      description: null,
      capabilities: ['content.read', 'package.publish'],
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  async serviceCredentials(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('service_credentials', {
      id,
      service_identity_id: over.service_identity_id ?? (await this.serviceIdentities()).id,
      public_prefix: id,
      secret_digest_algorithm: 'hmac-sha256',
      secret_digest_encoded: b64(),
      secret_digest_key_version: '1',
      capabilities: ['content.read'],
      state: 'active',
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      last_used_at: null,
      rotated_at: null,
      rotated_to_id: null,
      revoked_at: null,
      ...over,
    });
  }

  /** A pending WebAuthn authentication ceremony. */
  challenges(over: Row = {}): Promise<Row> {
    return this.insert('challenges', {
      id: uuidV7(),
      purpose: 'webauthn_authentication',
      state: 'pending',
      challenge_digest_algorithm: 'sha256',
      challenge_digest_encoded: b64(),
      challenge_digest_key_version: null,
      binding_digest: b64(),
      payload_digest: b64(),
      user_binding_digest: null,
      user_id: null,
      organization_id: null,
      expires_at: this.at(5 * MINUTE),
      activated_at: null,
      failure_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** An administrative recovery ticket (challenge purpose `account_recovery`). */
  async ticket(over: Row = {}): Promise<Row> {
    return this.challenges({
      purpose: 'account_recovery',
      challenge_digest_algorithm: 'hmac-sha256',
      challenge_digest_key_version: '1',
      binding_digest: null,
      payload_digest: null,
      user_binding_digest: b64(),
      user_id: over.user_id ?? (await this.users()).id,
      expires_at: this.at(15 * MINUTE),
      ...over,
    });
  }

  async recoveryCodes(over: Row = {}): Promise<Row> {
    return this.insert('recovery_codes', {
      id: uuidV7(),
      user_id: over.user_id ?? (await this.users()).id,
      generation: 0,
      public_selector: b64(8),
      secret_digest_algorithm: 'hmac-sha256',
      secret_digest_encoded: b64(),
      secret_digest_key_version: '1',
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      consumed_at: null,
      ...over,
    });
  }

  /** A pending device grant (no binding). */
  deviceGrants(over: Row = {}): Promise<Row> {
    return this.insert('device_grants', {
      id: uuidV7(),
      device_code_digest_algorithm: 'hmac-sha256',
      device_code_digest_encoded: b64(),
      device_code_digest_key_version: '1',
      user_code_digest_algorithm: 'hmac-sha256',
      user_code_digest_encoded: b64(),
      user_code_digest_key_version: '1',
      client_id: 'tessera-cli',
      client_name: 'Tessera CLI',
      requested_capabilities: ['identity.profile', 'organization.read'],
      state: 'pending',
      interval_seconds: 5,
      poll_count: 0,
      last_polled_at: null,
      expires_at: this.at(10 * MINUTE),
      user_id: null,
      organization_id: null,
      membership_id: null,
      membership_version: null,
      authorized_by_user_id: null,
      authorized_at: null,
      approved_capabilities: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** The binding columns of an approval by a fresh member. */
  async grantBinding(over: Row = {}): Promise<Row> {
    const membership = await this.memberships({ role: 'admin' });
    return {
      state: 'authorized',
      user_id: membership.user_id,
      organization_id: membership.organization_id,
      membership_id: membership.id,
      membership_version: 0,
      authorized_by_user_id: membership.user_id,
      authorized_at: this.now,
      approved_capabilities: ['identity.profile'],
      ...over,
    };
  }

  async deviceGrantDigestReservations(over: Row = {}): Promise<Row> {
    return this.insert('device_grant_digest_reservations', {
      digest_algorithm: 'hmac-sha256',
      digest_encoded: b64(),
      digest_key_version: '1',
      grant_id: over.grant_id ?? (await this.deviceGrants()).id,
      kind: 'device',
      created_at: this.now,
      ...over,
    });
  }

  async deviceTokenFamilies(over: Row = {}): Promise<Row> {
    const binding = await this.grantBinding({ state: 'consumed' });
    return this.insert('device_token_families', {
      id: uuidV7(),
      device_grant_id: over.device_grant_id ?? (await this.deviceGrants(binding)).id,
      user_id: binding.user_id,
      organization_id: binding.organization_id,
      membership_id: binding.membership_id,
      membership_version: 0,
      client_id: 'tessera-cli',
      capabilities: ['identity.profile'],
      state: 'active',
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      revoked_reason: null,
      ...over,
    });
  }

  async deviceAccessTokens(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('device_access_tokens', {
      id,
      family_id: over.family_id ?? (await this.deviceTokenFamilies()).id,
      public_selector: id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      state: 'active',
      expires_at: this.at(15 * MINUTE),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  async deviceRefreshTokens(over: Row = {}): Promise<Row> {
    const id = (over.id as string | undefined) ?? uuidV7();
    return this.insert('device_refresh_tokens', {
      id,
      family_id: over.family_id ?? (await this.deviceTokenFamilies()).id,
      public_selector: id,
      token_digest_algorithm: 'hmac-sha256',
      token_digest_encoded: b64(),
      token_digest_key_version: '1',
      state: 'active',
      rotation_counter: 0,
      rotated_to_id: null,
      consumed_at: null,
      expires_at: this.at(30 * DAY),
      created_at: this.now,
      updated_at: this.now,
      revoked_at: null,
      ...over,
    });
  }

  deviceTokenCredentialReservations(over: Row = {}): Promise<Row> {
    const tokenId = (over.token_id as string | undefined) ?? uuidV7();
    return this.insert('device_token_credential_reservations', {
      kind: 'access',
      token_id: tokenId,
      public_selector: tokenId,
      digest_algorithm: 'hmac-sha256',
      digest_encoded: b64(),
      digest_key_version: '1',
      created_at: this.now,
      ...over,
    });
  }

  externalReplayReceipts(over: Row = {}): Promise<Row> {
    return this.insert('external_replay_receipts', {
      id: uuidV7(),
      provider: storageKey(),
      assertion_digest: b64(),
      expires_at: this.at(60 * MINUTE),
      created_at: this.now,
      ...over,
    });
  }

  async federationProviderControls(over: Row = {}): Promise<Row> {
    const kind = (over.kind as 'oidc' | 'saml' | undefined) ?? 'oidc';
    return this.insert('federation_provider_controls', {
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_id: `idp-${token()}`,
      kind,
      storage_key: storageKey(kind),
      state: 'enabled',
      session_epoch: 0,
      disabled_at: null,
      disabled_reason: null,
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  /** An OIDC transaction. */
  async federationTransactions(over: Row = {}): Promise<Row> {
    return this.insert('federation_transactions', {
      selector_digest: b64(),
      organization_id: over.organization_id ?? (await this.organizations()).id,
      provider_id: 'idp',
      kind: 'oidc',
      storage_key: storageKey('oidc'),
      provider_session_epoch: 0,
      provider_version: 0,
      pkce_verifier_ciphertext: randomBytes(60),
      request_id_ciphertext: null,
      nonce_digest: b64(),
      expires_at: this.at(5 * MINUTE),
      created_at: this.now,
      ...over,
    });
  }

  /** A system event without request facts. */
  auditEvents(over: Row = {}): Promise<Row> {
    return this.insert('audit_events', {
      id: uuidV7(),
      actor_type: 'system',
      actor_user_id: null,
      actor_service_identity_id: null,
      organization_id: null,
      action: 'identity.bootstrapped',
      target_type: null,
      target_id: null,
      outcome: 'succeeded',
      reason_code: null,
      request_id: null,
      request_method: null,
      request_path: null,
      request_user_agent: null,
      request_client_ip_digest: null,
      request_trusted_proxy: null,
      occurred_at: this.now,
      ...over,
    });
  }

  /** Request facts of an audit event, pseudonyms included. */
  auditRequest(over: Row = {}): Row {
    return {
      request_id: `req_${b64(16)}`,
      request_method: 'POST',
      request_path: '/identity/v1/logout',
      request_user_agent: `v1.${b64()}`,
      request_client_ip_digest: `v1.${b64()}`,
      request_trusted_proxy: false,
      ...over,
    };
  }

  async scimOperations(over: Row = {}): Promise<Row> {
    return this.insert('scim_operations', await this.scimReceipt(over));
  }

  async scimBatchOperations(over: Row = {}): Promise<Row> {
    return this.insert('scim_batch_operations', { ...(await this.scimReceipt(over)), mutation_count: 1, ...over });
  }

  private async scimReceipt(over: Row): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    return {
      operation_id: uuidV7(),
      organization_id: organizationId,
      provider: `okta:${organizationId}`,
      request_method: 'POST',
      request_path: '/scim/v2/Users',
      request_precondition: null,
      request_digest: b64(),
      result_status: 201,
      result_resource_type: 'user',
      result_resource_id: uuidV7(),
      result_version: 1,
      committed_at: this.now,
      ...over,
    };
  }

  async scimGroups(over: Row = {}): Promise<Row> {
    const organizationId = (over.organization_id as string | undefined) ?? (await this.organizations()).id;
    return this.insert('scim_groups', {
      id: uuidV7(),
      organization_id: organizationId,
      provider: `okta:${organizationId}`,
      external_id: null,
      display_name: `Editors ${token()}`,
      state: 'active',
      created_at: this.now,
      updated_at: this.now,
      ...over,
    });
  }

  rateLimitBuckets(over: Row = {}): Promise<Row> {
    return this.insert('rate_limit_buckets', {
      bucket_key: `bootstrap:${b64()}`,
      window_start: this.now,
      window_seconds: 900,
      count: 1,
      ...over,
    });
  }
}

type Builder = {
  [K in keyof IdentityRows]: IdentityRows[K] extends (over?: Row) => Promise<Row> ? K : never;
}[keyof IdentityRows];

function camel(table: IdentityTable): Builder {
  return table.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as Builder;
}

/** Thrown to roll a test transaction back. */
const ROLLBACK = Symbol('rollback');

/**
 * Runs `work` inside a transaction that is always rolled back, so every test starts from the same
 * (empty) tables; returns what `work` returned.
 */
export async function inRollback<T>(orm: MikroORM, work: (rows: IdentityRows, sql: Sql) => Promise<T>): Promise<T> {
  const connection = orm.em.getConnection();
  let result: { value: T } | undefined;
  try {
    await connection.transactional(async (trx) => {
      const sql: Sql = (query, params = []) => connection.execute<Row[]>(query, params, 'all', trx);
      result = { value: await work(new IdentityRows(sql), sql) };
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return result!.value;
}

/** The error `work` fails with, or `undefined` when it succeeds. */
export async function failure(
  work: () => Promise<unknown>,
): Promise<{ code?: string; constraint?: string } | undefined> {
  try {
    await work();
    return undefined;
  } catch (error) {
    return error as { code?: string; constraint?: string };
  }
}
