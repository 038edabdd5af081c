import type {
  ChallengeRecord,
  CredentialRecord,
  IdentityCredentialReads,
  InvitationRecord,
  RecoveryCodeRecord,
} from '@tessera/identity';
import { isUuid, table, type StoreGateway } from './identity-store.gateway.js';
import { challengeFromRow, credentialFromRow, invitationFromRow, recoveryCodeFromRow } from './identity-row.mappers.js';
import { readOne } from './identity-store.reads.js';

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

  listCredentialsForUser(userId: string): Promise<CredentialRecord[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (await sql(`select * from ${table('credentials')} where user_id = ? order by created_at, id`, [userId])).map(
        credentialFromRow,
      ),
    );
  }

  findChallenge(id: string): Promise<ChallengeRecord | null> {
    return readOne(this.gateway, 'challenges', 'id = ?', [id], challengeFromRow, isUuid(id));
  }

  findRecoveryCodeBySelector(publicSelector: string): Promise<RecoveryCodeRecord | null> {
    return readOne(this.gateway, 'recovery_codes', 'public_selector = ?', [publicSelector], recoveryCodeFromRow);
  }

  listRecoveryCodesForUser(userId: string): Promise<RecoveryCodeRecord[]> {
    if (!isUuid(userId)) return this.gateway.read(async () => []);
    return this.gateway.read(async (sql) =>
      (await sql(`select * from ${table('recovery_codes')} where user_id = ? order by generation, id`, [userId])).map(
        recoveryCodeFromRow,
      ),
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
