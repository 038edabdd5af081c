import { createHash } from 'node:crypto';
import type { RequestFacts } from '../context/identity-call.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { IdentitySessions, MintedSession } from '../sessions/session.service.js';
import type { MembershipRecord, OrganizationRecord, UserRecord } from '../store/identity-records.js';
import { encodeBase64Url } from '../tokens/base64url.codec.js';
import { timingSafeEqual } from '../tokens/keyed-digest.crypto.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';

/** What bootstrap asks for (route 46). */
export interface BootstrapInput {
  readonly secret: string;
  readonly displayName: string;
  readonly primaryEmail: string;
  readonly organizationName: string;
  readonly organizationSlug: string;
}

/** A bootstrapped platform: the first user, organization, owner membership and restricted session. */
export interface Bootstrapped extends MintedSession {
  readonly user: UserRecord;
  readonly organization: OrganizationRecord;
  readonly membership: MembershipRecord;
}

/**
 * `true` while route 46 exists: lifecycle `pending` with a configured secret (else 404).
 *
 * @example
 * available: bootstrapAvailable
 */
export function bootstrapAvailable(kernel: IdentityKernel): boolean {
  return kernel.config.bootstrap.lifecycle === 'pending' && kernel.keys.bootstrapSecret !== undefined;
}

/**
 * The one-time bootstrap (route 46, identity-model §5.7): available only while the lifecycle is
 * `pending` with a configured secret; one atomic command creates the first user, organization,
 * owner membership and a restricted session; a second bootstrap is 409 `conflict`.
 *
 * @example
 * const { user, organization, issued } = await bootstrap.run(facts, input);
 */
export class IdentityBootstrap {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Checks the secret in constant time (401), then runs the bootstrap command. */
  async run(facts: RequestFacts, input: BootstrapInput): Promise<Bootstrapped> {
    const { kernel } = this;
    const { at } = facts;
    const expected = kernel.keys.bootstrapSecret;
    if (expected === undefined) throw new IdentityError('not_found');
    if (!timingSafeEqual(Buffer.from(input.secret, 'utf8'), expected)) throw new IdentityError('invalid_credentials');
    const id = () => generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const userId = id();
    const organizationId = id();
    const issued = this.sessions.mintRestricted(userId, 'bootstrap', at);
    const result = await kernel.store.bootstrapIdentity({
      user: { id: userId, primaryEmail: input.primaryEmail, displayName: input.displayName },
      organization: { id: organizationId, name: input.organizationName, slug: input.organizationSlug },
      membership: { id: id(), organizationId, userId, role: 'owner' },
      session: issued.session,
      receiptDigest: encodeBase64Url(createHash('sha256').update(input.secret, 'utf8').digest()),
      at,
      audits: [
        kernel.audit.event(facts.exchange, at, {
          actor: { type: 'system' },
          action: 'identity.bootstrapped',
          organizationId,
          target: { type: 'organization', id: organizationId },
        }),
      ],
    });
    if (!result.ok) {
      if (result.code === 'already_exists' || result.code === 'unique_constraint') throw new IdentityError('conflict');
      throw new IdentityError(mapStoreError(result.code, 'identity'));
    }
    const { user, organization, membership, session } = result.value;
    return { user, organization, membership, issued, session };
  }
}
