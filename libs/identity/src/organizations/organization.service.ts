import { encodeAuditCursor, type AuditCursor } from '../audit/audit-cursor.js';
import type { AuditExportSource } from '../audit/audit-export.batches.js';
import type { AuditQuery } from '../audit/audit-query.js';
import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import { mapStoreError } from '../errors/store.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { AuditEventRecord, OrganizationRecord, OrganizationRole } from '../store/identity-records.js';
import { DEVICE_ROLE, requireDeviceScope } from '../device/device-bearer.resolver.js';
import { decideOrganization } from '../guards/identity-decisions.js';
import type { AuditEventPosition } from '../store/identity-invitation-audit.port.js';
import type { OrganizationChange } from '../store/identity-organization.port.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import { IdentityBootstrap } from './bootstrap.service.js';
import { IdentityMemberships } from './membership.service.js';
import { organizationFailure, requireOrganizationScope } from './organization-scope.js';

/** One row of `OrganizationSummary` (identity-http §4.5): the organization and the caller's role there. */
export interface OrganizationSummaryEntry {
  readonly organization: OrganizationRecord;
  /** The member's role, or `device` for a device principal. */
  readonly role: OrganizationRole | typeof DEVICE_ROLE;
}

/**
 * The organizations domain (routes 21–28 and 46, identity-http §4.1, identity-model §6.1): list,
 * create, read, rename and soft-delete organizations, their memberships
 * ({@link IdentityMemberships}) and the one-time bootstrap ({@link IdentityBootstrap}). Organization
 * scope comes only from the route; every tenancy or authorization failure is the same 404
 * `not_found`, and only step-up answers 403.
 *
 * @example
 * const organization = await organizations.create(call, 'Acme', 'acme');
 */
export class IdentityOrganizations {
  readonly memberships: IdentityMemberships;
  readonly bootstrap: IdentityBootstrap;

  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {
    this.memberships = new IdentityMemberships(kernel, sessions);
    this.bootstrap = new IdentityBootstrap(kernel, sessions);
  }

  /**
   * Route 21: the caller's active memberships in active organizations with their roles, sorted by
   * id; a federated session sees its own tenant only; a device (with `identity.organizations`,
   * else 404) exactly its family's organization with role `device`.
   */
  async list(context: IdentityContext): Promise<OrganizationSummaryEntry[]> {
    if (context.device !== undefined) {
      requireDeviceScope(context, 'identity.organizations');
      return [{ organization: context.device.organization, role: DEVICE_ROLE }];
    }
    const entries = await storeRead(() => this.kernel.store.listOrganizationsForUser(context.principal.id));
    const tenant = context.session?.federation?.organizationId;
    return entries
      .filter(({ organization }) => tenant === undefined || organization.id === tenant)
      .sort((a, b) => (a.organization.id < b.organization.id ? -1 : 1))
      .map(({ organization, membership }) => ({ organization, role: membership.role }));
  }

  /** Route 22: step-up; the creator becomes the only owner; a taken slug → 409. */
  async create(call: IdentityCall, name: string, slug: string): Promise<OrganizationRecord> {
    const { context, at } = call;
    this.sessions.requireStep(context);
    const id = () => generateUuidV7(this.kernel.runtime.clock, this.kernel.runtime.random);
    const organizationId = id();
    const membershipId = id();
    const actor = { type: 'user', userId: context.principal.id } as const;
    const result = await this.kernel.store.createOrganization({
      organization: { id: organizationId, name, slug },
      owner: { id: membershipId, organizationId, userId: context.principal.id, role: 'owner' },
      at,
      audits: [
        this.kernel.audit.event(call.exchange, at, {
          actor,
          action: 'organization.created',
          organizationId,
          target: { type: 'organization', id: organizationId },
        }),
        this.kernel.audit.event(call.exchange, at, {
          actor,
          action: 'membership.created',
          organizationId,
          target: { type: 'membership', id: membershipId },
          reasonCode: 'owner',
        }),
      ],
    });
    if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'organization'));
    return result.value.organization;
  }

  /**
   * Route 23: any active membership; a device (with `identity.organizations`) only its family's
   * organization, with role `device`; anything else 404.
   */
  read(context: IdentityContext, organizationId: string): OrganizationSummaryEntry {
    if (context.device !== undefined) {
      const { organization } = context;
      if (organization === undefined || !decideOrganization(context, organizationId).allow)
        throw new IdentityError('not_found');
      requireDeviceScope(context, 'identity.organizations');
      return { organization, role: DEVICE_ROLE };
    }
    const { organization, role } = requireOrganizationScope(context, organizationId);
    return { organization, role };
  }

  /** Route 24: `organization.update`. */
  async rename(call: IdentityCall, organizationId: string, name: string): Promise<OrganizationRecord> {
    const { organization } = requireOrganizationScope(call.context, organizationId, 'organization.update');
    return this.mutate(call, organization, { kind: 'rename', name });
  }

  /** Route 25: `organization.delete`, then step-up; a soft delete. */
  async delete(call: IdentityCall, organizationId: string): Promise<OrganizationRecord> {
    const { organization } = requireOrganizationScope(call.context, organizationId, 'organization.delete');
    this.sessions.requireStep(call.context);
    return this.mutate(call, organization, { kind: 'delete' });
  }

  /**
   * Route 29 (identity-http §4.4): one page of the organization's audit stream for a caller with
   * `audit.read` there (404 otherwise); only then is a cursor of another organization refused (400).
   */
  async auditPage(
    context: IdentityContext,
    organizationId: string,
    query: AuditQuery,
  ): Promise<{ events: AuditEventRecord[]; nextCursor?: string }> {
    const after = this.auditPosition(context, organizationId, query.cursor);
    const page = await this.auditEvents(organizationId, after, query.limit);
    const last = page.events.at(-1);
    if (!page.hasMore || last === undefined) return { events: page.events };
    const nextCursor = encodeAuditCursor({ organizationId, occurredAt: last.occurredAt, eventId: last.id });
    return { events: page.events, nextCursor };
  }

  /**
   * The audit export (identity-http §4.4): route 29's checks in its order (`audit.read` there, else
   * 404; then a cursor of another organization, 400), then the stream from after `cursor`, read
   * in keyset pages by `writeAuditExport`.
   */
  auditExport(context: IdentityContext, organizationId: string, cursor?: AuditCursor): AuditExportSource {
    const after = this.auditPosition(context, organizationId, cursor);
    return {
      organizationId,
      ...(after === undefined || cursor === undefined ? {} : { after, cursor: encodeAuditCursor(cursor) }),
      page: (position, limit, format) =>
        storeRead(() =>
          this.kernel.store.exportAuditEventLines(organizationId, {
            limit,
            format,
            ...(position === undefined ? {} : { after: position }),
          }),
        ),
      positions: (position, step, count) =>
        storeRead(() =>
          this.kernel.store.findAuditEventPositions(organizationId, {
            step,
            count,
            ...(position === undefined ? {} : { after: position }),
          }),
        ),
    };
  }

  /** `audit.read` in the organization (404), then the cursor's organization binding (400). */
  private auditPosition(
    context: IdentityContext,
    organizationId: string,
    cursor: AuditCursor | undefined,
  ): AuditEventPosition | undefined {
    requireOrganizationScope(context, organizationId, 'audit.read');
    if (cursor === undefined) return undefined;
    if (cursor.organizationId !== organizationId) throw new IdentityError('request_invalid');
    return { occurredAt: cursor.occurredAt, id: cursor.eventId };
  }

  private auditEvents(organizationId: string, after: AuditEventPosition | undefined, limit: number) {
    return storeRead(() =>
      this.kernel.store.listAuditEventsForOrganization(organizationId, {
        limit,
        ...(after === undefined ? {} : { after }),
      }),
    );
  }

  private async mutate(
    call: IdentityCall,
    organization: OrganizationRecord,
    change: OrganizationChange,
  ): Promise<OrganizationRecord> {
    const result = await this.kernel.store.mutateOrganization({
      organizationId: organization.id,
      expectedVersion: organization.version,
      change,
      at: call.at,
      audit: this.kernel.audit.event(call.exchange, call.at, {
        actor: { type: 'user', userId: call.context.principal.id },
        action: change.kind === 'rename' ? 'organization.changed' : 'organization.deleted',
        organizationId: organization.id,
        target: { type: 'organization', id: organization.id },
        reasonCode: change.kind === 'rename' ? 'renamed' : 'deleted',
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value;
  }
}
