import type { CredentialRecord, IdentityCredentialCommands, SessionRecord } from '@tessera/identity';
import { isUuid, table, type Row } from './identity-store.gateway.js';
import { auditColumns, sessionColumns } from './identity-row.columns.js';
import { allColumns, CREDENTIAL_FIELDS, prefixedFields } from './identity-row.fields.js';
import { credentialFromRow, sessionFromRow, unprefix } from './identity-row.mappers.js';

type AuthenticationInput = Parameters<IdentityCredentialCommands['completeCredentialAuthentication']>[0];

const CREDENTIAL_PREFIX = 'credential__';
const RETURNED_CREDENTIAL = prefixedFields('counted', CREDENTIAL_FIELDS, CREDENTIAL_PREFIX);
/** Statement texts by number of audits. */
const TEXTS = new Map<number, string>();

/** `$n` placeholders over one growing parameter list (a value used twice is passed twice). */
class Placeholders {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A passkey sign-in without a session to rotate — the common case — as ONE autocommit statement
 * (one round trip instead of the transaction's nine). The statement locks, in the transactional
 * path's order (so the two never deadlock): the challenge (`for update`: pending, this version and
 * purpose, unexpired at `at`, naming this user or nobody), then the user (`for share`: active; its
 * epoch pinned), then the credential (`for update`: active, this user's, this version). Only when
 * all three hold does it claim the challenge, move the credential's counter, insert the session at
 * the user's epoch and write the audits; read committed re-checks each locked row's conditions
 * against its newest version, so of concurrent finishes exactly one claims.
 *
 * Anything else writes nothing and returns no row: the caller then runs the transactional
 * completion, which classifies the miss and, for a deterministic one, fails the ceremony with its
 * rejection audits — the semantics stay those of one command either way. `undefined` when the input
 * is not such a sign-in (a rotation, a malformed id): the transaction decides those.
 *
 * @example
 * const statement = signInStatement(input);
 * const [row] = statement ? await sql(statement.query, statement.values) : [];
 * const done = row === undefined ? undefined : signInFromRow(row); // undefined → run the transaction
 */
export function signInStatement(input: AuthenticationInput): { query: string; values: unknown[] } | undefined {
  const { claim, at, credentialId, session } = input;
  if (input.rotateFrom !== null || session.authenticationMethod !== 'passkey') return undefined;
  if (!isUuid(claim.challengeId) || !isUuid(credentialId) || !isUuid(session.userId)) return undefined;
  if (claim.purpose !== 'webauthn_authentication' && claim.purpose !== 'step_up') return undefined;
  const p = new Placeholders();
  const $at = p.add(at);
  const $challenge = p.add(claim.challengeId);
  const $user = p.add(session.userId);
  const $credential = p.add(credentialId);
  const locks = `
    with challenge as (
      select id from ${table('challenges')}
       where id = ${$challenge} and version = ${p.add(claim.expectedVersion)} and state = 'pending'
         and purpose = ${p.add(claim.purpose)} and expires_at > ${$at}
         and (user_id is null or user_id = ${$user})
       for update
    ), owner as (
      select u.id, u.session_epoch from ${table('users')} u, challenge
       where u.id = ${$user} and u.state = 'active'
       for share of u
    ), passkey as (
      select c.id from ${table('credentials')} c, owner
       where c.id = ${$credential} and c.user_id = owner.id and c.version = ${p.add(input.expectedCredentialVersion)}
         and c.state = 'active'
       for update of c
    )`;
  const claimed = `
    , claimed as (
      update ${table('challenges')} ch set state = 'consumed', updated_at = ${$at}, version = ch.version + 1
        from passkey where ch.id = ${$challenge}
      returning ch.id
    ), counted as (
      update ${table('credentials')} c
         set sign_count = greatest(c.sign_count, ${p.add(input.signCount)}), backed_up = ${p.add(input.backedUp)}, last_used_at = ${$at},
             updated_at = ${$at}, version = c.version + 1
        from claimed where c.id = ${$credential}
      returning ${allColumns('credentials', 'c')}
    )`;
  // The epoch is the locked user's, whatever the stamp below says.
  const sessionRow = sessionColumns(session, { userSessionEpoch: 0, at });
  const sessionNames = Object.keys(sessionRow);
  const sessionValues = sessionNames.map((name) =>
    name === 'user_session_epoch' ? 'owner.session_epoch' : p.add(sessionRow[name]),
  );
  const created = `
    , created as (
      insert into ${table('sessions')} (${sessionNames.map((c) => `"${c}"`).join(', ')})
      select ${sessionValues.join(', ')} from owner, counted
      returning ${allColumns('sessions')}
    )`;
  const audits = input.audits.map((event, index) => {
    const row = auditColumns(event);
    const names = Object.keys(row);
    return `
    , audit_${index} as (
      insert into ${table('audit_events')} (${names.map((c) => `"${c}"`).join(', ')})
      select ${names.map((name) => p.add(row[name])).join(', ')} from created
      returning id
    )`;
  });
  // The text depends on the number of audits only (every row builder yields all its columns): the
  // same string each time, so the prepared-statement lookup does not hash a new one per sign-in.
  let query = TEXTS.get(input.audits.length);
  if (query === undefined) {
    query = `${locks}${claimed}${created}${audits.join('')}
    select ${allColumns('sessions', 'created')}, ${RETURNED_CREDENTIAL} from created, counted`;
    TEXTS.set(input.audits.length, query);
  }
  return { query, values: p.values };
}

/** The completion of a {@link signInStatement} row: the credential as updated, the new session. */
export function signInFromRow(row: Row): { credential: CredentialRecord; session: SessionRecord; previous: null } {
  return {
    credential: credentialFromRow(unprefix(row, CREDENTIAL_PREFIX)),
    session: sessionFromRow(row),
    previous: null,
  };
}
