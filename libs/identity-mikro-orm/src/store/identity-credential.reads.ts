import type {
  AssertionSubjects,
  ChallengeRecord,
  CredentialRecord,
  IdentityCredentialReads,
  InvitationRecord,
  RecoveryCodeRecord,
  StoredDigest,
} from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';
import { CHALLENGE_FIELDS, CREDENTIAL_FIELDS, prefixedFields, USER_FIELDS, allColumns } from './identity-row.fields.js';
import {
  challengeFromRow,
  credentialFromRow,
  invitationFromRow,
  recoveryCodeFromRow,
  unprefix,
  userFromRow,
} from './identity-row.mappers.js';
import { readOne } from './identity-store.reads.js';

/** The ceremony row outer-joined with the credential and its user, every column under its prefix. */
const ASSERTION_SUBJECTS = `select ${prefixedFields('ch', CHALLENGE_FIELDS, 'ch_')}, ${prefixedFields('c', CREDENTIAL_FIELDS, 'c_')},
         ${prefixedFields('u', USER_FIELDS, 'u_')}
    from (select 1) as one
    left join ${table('challenges')} ch on ch.id = ?::uuid
    left join ${table('credentials')} c on c.web_authn_id = ?::text
    left join ${table('users')} u on u.id = c.user_id`;

/**
 * The passkey and recovery reads of identity-model §9.1. Ids that are not UUIDs match nothing.
 *
 * @example
 * const reads = new IdentityCredentialReadQueries(gateway);
 * const passkey = await reads.findCredentialByWebAuthnId(response.id);
 */
export class IdentityCredentialReadQueries implements IdentityCredentialReads {
  constructor(private readonly gateway: StoreGateway) {}

  findCredential(id: string): Promise<CredentialRecord | null> {
    return readOne(this.gateway, 'credentials', 'id = ?', [id], credentialFromRow, isUuid(id));
  }

  findCredentialByWebAuthnId(webAuthnId: string): Promise<CredentialRecord | null> {
    return readOne(this.gateway, 'credentials', 'web_authn_id = ?', [webAuthnId], credentialFromRow);
  }

  /**
   * One statement: the challenge row (if any) outer-joined with the credential and its user (if
   * any) — every column of each under its own prefix.
   */
  findAssertionSubjects(challengeId: string, webAuthnId: string | null): Promise<AssertionSubjects> {
    return this.gateway.read(async (sql) => {
      const [row] = await sql(ASSERTION_SUBJECTS, [isUuid(challengeId) ? challengeId : null, webAuthnId]);
      const found = (prefix: string) => row !== undefined && row[`${prefix}id`] !== null;
      return {
        challenge: found('ch_') ? challengeFromRow(unprefix(row!, 'ch_')) : null,
        credential: found('c_') ? credentialFromRow(unprefix(row!, 'c_')) : null,
        owner: found('u_') ? userFromRow(row!, 'u_') : null,
      };
    });
  }

  listCredentialsForUser(userId: string): Promise<CredentialRecord[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('credentials')} from ${table('credentials')} where user_id = ? order by created_at, id`,
          [userId],
        )
      ).map(credentialFromRow),
    );
  }

  findChallenge(id: string): Promise<ChallengeRecord | null> {
    return readOne(this.gateway, 'challenges', 'id = ?', [id], challengeFromRow, isUuid(id));
  }

  findRecoveryCodeByDigests(digests: readonly StoredDigest[]): Promise<RecoveryCodeRecord | null> {
    const versions = digests.map((digest) => digest.keyVersion);
    return readOne(
      this.gateway,
      'recovery_codes',
      `(secret_digest_algorithm, secret_digest_encoded, secret_digest_key_version) in
         (select a, e, v from unnest(?::text[], ?::text[], ?::text[]) as d (a, e, v)) limit 1`,
      [digests.map((digest) => digest.algorithm), digests.map((digest) => digest.encoded), versions],
      recoveryCodeFromRow,
      digests.length > 0 && versions.every((version) => version !== null),
    );
  }

  findRecoveryCodeBySelector(publicSelector: string): Promise<RecoveryCodeRecord | null> {
    return readOne(this.gateway, 'recovery_codes', 'public_selector = ?', [publicSelector], recoveryCodeFromRow);
  }

  listRecoveryCodesForUser(userId: string): Promise<RecoveryCodeRecord[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (
        await sql(
          `select ${allColumns('recovery_codes')} from ${table('recovery_codes')} where user_id = ? order by generation, id`,
          [userId],
        )
      ).map(recoveryCodeFromRow),
    );
  }

  /** The latest acceptance, should the user have accepted more than one invitation. */
  findInvitationAcceptedByUser(userId: string): Promise<InvitationRecord | null> {
    return readOne(
      this.gateway,
      'invitations',
      'accepted_by_user_id = ? order by accepted_at desc, id desc limit 1',
      [userId],
      invitationFromRow,
      isUuid(userId),
    );
  }
}
