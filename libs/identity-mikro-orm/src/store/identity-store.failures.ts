import { causeChain, findDatabaseFailure } from '@tessera/database';
import { StoreError, type StoreErrorCode } from '@tessera/identity';

/**
 * The `IdentityStore` code (`identity-model.md` §9.4) of whatever a store statement threw, read
 * through `@tessera/database`'s classifier:
 *
 * - a {@link StoreError} met in the `cause` / `previous` chain before the database failure keeps its code;
 * - 23505 → `unique_constraint`; 23503, 23514 and 22P02 (a missing parent, a refused state, a
 *   malformed value: the command's transition is not allowed) → `invalid_transition`;
 * - 40001 / 40P01 → `version_conflict`; a database that cannot answer → `unavailable`;
 * - 08P01 → `unavailable`: the store binds every value as a parameter, so this is a real protocol
 *   violation (the server ends the connection), never the inlined-NUL case the classifier reads
 *   as bad data;
 * - anything else (other constraint or data errors, programming errors, unknown errors) → `internal`.
 *
 * @example
 * catch (error) { return { ok: false, code: storeFailureCode(error) }; }
 */
export function storeFailureCode(error: unknown): StoreErrorCode {
  const failure = findDatabaseFailure(error);
  for (const link of causeChain(error)) {
    if (link instanceof StoreError) return link.code;
    if (link === failure?.source) break;
  }
  switch (failure?.kind) {
    case 'unique_violation':
      return 'unique_constraint';
    case 'constraint_violation':
      return failure.sqlState === '23503' || failure.sqlState === '23514' ? 'invalid_transition' : 'internal';
    case 'invalid_data':
      if (failure.sqlState === '22P02') return 'invalid_transition';
      return failure.sqlState === '08P01' ? 'unavailable' : 'internal';
    case 'transaction_conflict':
      return 'version_conflict';
    case 'unavailable':
      return 'unavailable';
    default:
      return 'internal';
  }
}
