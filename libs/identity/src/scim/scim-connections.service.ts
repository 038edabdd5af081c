import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { storeRead } from '../http/route-kit.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { organizationFailure, requireOrganizationScope } from '../organizations/organization-scope.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { ScimConnectionRecord } from '../store/identity-scim.records.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import type { ScimConnectionBody } from './scim-connection.request.js';
import { issueScimToken } from './scim-connection.token.js';

const MANAGE = 'scim.manage';

/** A connection with its bearer token, shown once. */
export interface IssuedScimConnection {
  readonly connection: ScimConnectionRecord;
  readonly token: string;
}

/**
 * SCIM connections managed by the organization (issue 15, Deliver 2): owners and admins with
 * `scim.manage` (anyone else, or another organization: 404 like an unknown organization); every
 * change also needs a recent passkey (403 `step_up_required`). Tokens are shown once and stored as
 * keyed digests; a rotation keeps the previous token valid for 10 more minutes.
 *
 * @example
 * const { connection, token } = await connections.create(call, organizationId, { providerName: 'okta', groupRoles: [] });
 */
export class IdentityScimConnections {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Every connection of the organization, oldest first. */
  list(context: IdentityContext, organizationId: string): Promise<ScimConnectionRecord[]> {
    requireOrganizationScope(context, organizationId, MANAGE);
    return storeRead(() => this.kernel.store.listScimConnections(organizationId));
  }

  /** A new active connection and its first token; an active connection of that provider name → 409. */
  async create(call: IdentityCall, organizationId: string, body: ScimConnectionBody): Promise<IssuedScimConnection> {
    const { kernel } = this;
    this.authorize(call, organizationId);
    const id = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const issued = issueScimToken(kernel.runtime, kernel.keys.servicePepper);
    const result = await kernel.store.createScimConnection({
      connection: { id, organizationId, providerName: body.providerName, groupRoles: body.groupRoles },
      token: { id: issued.id, secretDigest: issued.secretDigest },
      at: call.at,
      audit: this.audit(call, organizationId, 'scim_connection.created', id),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return { connection: result.value, token: issued.token };
  }

  /** A new token; the previous one keeps working for 10 minutes. */
  async rotate(call: IdentityCall, organizationId: string, connectionId: string): Promise<IssuedScimConnection> {
    const { kernel } = this;
    this.authorize(call, organizationId);
    const issued = issueScimToken(kernel.runtime, kernel.keys.servicePepper);
    const result = await kernel.store.rotateScimConnectionToken({
      organizationId,
      connectionId,
      token: { id: issued.id, secretDigest: issued.secretDigest },
      at: call.at,
      audit: this.audit(call, organizationId, 'scim_connection.rotated', connectionId),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return { connection: result.value, token: issued.token };
  }

  /** The connection → `revoked`; its tokens stop working at once. A revoked connection → 404. */
  async revoke(call: IdentityCall, organizationId: string, connectionId: string): Promise<ScimConnectionRecord> {
    this.authorize(call, organizationId);
    const result = await this.kernel.store.revokeScimConnection({
      organizationId,
      connectionId,
      at: call.at,
      audit: this.audit(call, organizationId, 'scim_connection.revoked', connectionId),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value;
  }

  private authorize(call: IdentityCall, organizationId: string): void {
    if (!this.kernel.scim.enabled) throw new IdentityError('not_found');
    requireOrganizationScope(call.context, organizationId, MANAGE);
    this.sessions.requireStep(call.context);
  }

  private audit(call: IdentityCall, organizationId: string, action: string, connectionId: string) {
    return this.kernel.audit.event(call.exchange, call.at, {
      actor: { type: 'user', userId: call.context.principal.id },
      organizationId,
      action,
      target: { type: 'scim_connection', id: connectionId },
    });
  }
}
