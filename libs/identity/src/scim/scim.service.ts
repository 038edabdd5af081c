import type { IdentityKernel } from '../identity-kernel.js';
import type { ScimBatchResult, ScimMutation } from '../store/identity-scim.port.js';
import type {
  ScimGroupRecord,
  ScimTenant,
  ScimUserAttributes,
  ScimUserGroup,
  ScimUserRecord,
} from '../store/identity-scim.records.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import type {
  ScimGroupFilter,
  ScimGroupSortKey,
  ScimListQuery,
  ScimUserFilter,
  ScimUserSortKey,
} from './filter/scim-filter.ast.js';
import { applyScimUserPatch } from './patch/scim-user.patch.js';
import { planScimGroupPatch } from './patch/scim-group.patch.js';
import { decodeScimGroup, renderScimGroup } from './resources/scim-group.codec.js';
import { projectScimResource } from './resources/scim-projection.js';
import { decodeScimUser, renderScimUser } from './resources/scim-user.codec.js';
import { scimBaseUrl } from './scim-connection.view.js';
import { applyScimMutation, scimStoreFailure, ScimStoreFailure, type ScimMutationRequest } from './scim-mutations.js';
import { identityDisplayName, userAttributesOf } from './scim-user.attributes.js';
import { ScimError } from './scim.errors.js';
import { admits, etag, listBody, read, wants, type ScimAnswer } from './scim-answer.js';
import type { ScimProjectionParams } from './http/scim-list.params.js';

/** A mutation request with its preconditions (`If-Match` versions, `null` when absent). */
export interface ScimWrite extends ScimMutationRequest {
  readonly ifMatch: readonly (number | '*')[] | null;
  readonly projection: ScimProjectionParams;
}

const NOT_FOUND = new ScimError(404, undefined, 'The resource was not found');
/** `active` as a PUT body may name it (plain or URN-prefixed), lower-cased. */
const ACTIVE_KEYS = ['active', 'urn:ietf:params:scim:schemas:core:2.0:user:active'];
const PRECONDITION_FAILED = new ScimError(412, undefined, 'The resource version does not match If-Match');
/** Largest page of a Groups list that includes members. */
const LIST_PAGE_WITH_MEMBERS = 20;
/** Read-modify-write attempts of a PATCH without `If-Match` that loses a concurrent change. */
const PATCH_ATTEMPTS = 5;

/**
 * The SCIM 2.0 domain (identity-http §7 as changed by issue 15, identity-model §5.10): Users and
 * Groups of one tenant, each mutation one idempotent batch with its membership effects and audits.
 * Reads and writes never leave the tenant: another tenant's id is 404.
 *
 * @example
 * const answer = await scim.createUser(write, body);
 */
export class IdentityScim {
  private readonly base: string;

  constructor(private readonly kernel: IdentityKernel) {
    this.base = scimBaseUrl(kernel.config.publicBaseUrl);
  }

  /** GET /Users/{id} (304 when `If-None-Match` names the current version). */
  async getUser(
    tenant: ScimTenant,
    id: string,
    projection: ScimProjectionParams,
    ifNoneMatch: readonly (number | '*')[] | null,
  ): Promise<ScimAnswer> {
    const user = await read(() => this.kernel.store.findScimUser(tenant, id));
    if (user === null) throw NOT_FOUND;
    if (ifNoneMatch !== null && admits(ifNoneMatch, user.version)) return { status: 304, etag: etag(user.version) };
    return this.userAnswer(tenant, user, 200, projection);
  }

  /** GET /Users with filter, sort and paging. */
  async listUsers(
    tenant: ScimTenant,
    query: ScimListQuery<ScimUserFilter, ScimUserSortKey>,
    projection: ScimProjectionParams,
  ): Promise<ScimAnswer> {
    // The page, its total and (when answered) the users' groups in one read.
    const page = await read(() => this.kernel.store.queryScimUsers(tenant, query, wants(projection, 'groups')));
    const groups = page.groups;
    const resources = page.resources.map((user) =>
      projectScimResource(
        renderScimUser(
          user,
          groups.filter((group) => group.userId === user.id),
          this.base,
        ),
        projection,
        'User',
      ),
    );
    return { status: 200, body: listBody(page.totalResults, query.startIndex, resources) };
  }

  /** POST /Users: a new identity user and its membership (201 + Location + ETag). */
  async createUser(write: ScimWrite, body: Record<string, unknown>): Promise<ScimAnswer> {
    const replayed = await this.replayed(write);
    if (replayed !== null) return this.userReplay(write, replayed);
    const attributes = decodeScimUser(body);
    const { clock, random } = this.kernel.runtime;
    const mutation: ScimMutation = {
      kind: 'createUser',
      scimUserId: generateUuidV7(clock, random),
      userId: generateUuidV7(clock, random),
      membershipId: generateUuidV7(clock, random),
      userDisplayName: identityDisplayName(attributes),
      attributes,
    };
    return this.userResult(write, mutation, 201);
  }

  /** PUT /Users/{id}: the whole representation replaces the stored one. */
  async replaceUser(write: ScimWrite, id: string, body: Record<string, unknown>): Promise<ScimAnswer> {
    const replayed = await this.replayed(write);
    if (replayed !== null) return this.userReplay(write, replayed);
    const attributes = decodeScimUser(body);
    // A replacement that leaves `active` out keeps the current state: only an explicit
    // `active: true` undoes a deprovisioning.
    const keepsActive = !Object.keys(body).some((key) => ACTIVE_KEYS.includes(key.toLowerCase()));
    return this.rewriteUser(write, id, (current) =>
      keepsActive ? { ...attributes, active: current.active } : attributes,
    );
  }

  /** PATCH /Users/{id}: read, patch, compare-and-set (retried without `If-Match`). */
  async patchUser(write: ScimWrite, id: string, body: Record<string, unknown>): Promise<ScimAnswer> {
    const replayed = await this.replayed(write);
    if (replayed !== null) return this.userReplay(write, replayed);
    return this.rewriteUser(write, id, (current) => applyScimUserPatch(current, body));
  }

  /** DELETE /Users/{id}: the SCIM user goes; the tenant membership → `removed` (204). */
  async deleteUser(write: ScimWrite, id: string): Promise<ScimAnswer> {
    if ((await this.replayed(write)) !== null) return { status: 204 };
    // Without `If-Match` the store's locked read answers a missing user (404): no read before.
    let expectedVersion: number | null = null;
    if (write.ifMatch !== null) {
      const user = await read(() => this.kernel.store.findScimUser(write.tenant, id));
      if (user === null) throw NOT_FOUND;
      if (!admits(write.ifMatch, user.version)) throw PRECONDITION_FAILED;
      expectedVersion = user.version;
    }
    await this.apply(write, { kind: 'deleteUser', scimUserId: id, expectedVersion });
    return { status: 204 };
  }

  /** GET /Groups/{id}. */
  async getGroup(
    tenant: ScimTenant,
    id: string,
    projection: ScimProjectionParams,
    ifNoneMatch: readonly (number | '*')[] | null,
  ): Promise<ScimAnswer> {
    const group = await read(() => this.kernel.store.findScimGroup(tenant, id));
    if (group === null) throw NOT_FOUND;
    if (ifNoneMatch !== null && admits(ifNoneMatch, group.version)) return { status: 304, etag: etag(group.version) };
    return this.groupAnswer(tenant, group, 200, projection);
  }

  /** GET /Groups (members read only when the projection keeps them). */
  async listGroups(
    tenant: ScimTenant,
    query: ScimListQuery<ScimGroupFilter, ScimGroupSortKey>,
    projection: ScimProjectionParams,
  ): Promise<ScimAnswer> {
    // With members, a page holds at most 20 groups (up to 10,000 members each): bounded answers.
    const withMembers = wants(projection, 'members');
    const bounded = withMembers ? { ...query, count: Math.min(query.count, LIST_PAGE_WITH_MEMBERS) } : query;
    const page = await read(() => this.kernel.store.queryScimGroups(tenant, bounded));
    const ids = page.resources.map((group) => group.id);
    const members =
      ids.length === 0 || !withMembers ? [] : await read(() => this.kernel.store.listScimGroupMembers(tenant, ids));
    const resources = page.resources.map((group) =>
      projectScimResource(
        renderScimGroup(
          group,
          members.filter((member) => member.groupId === group.id),
          this.base,
        ),
        projection,
        'Group',
      ),
    );
    return { status: 200, body: listBody(page.totalResults, query.startIndex, resources) };
  }

  /** POST /Groups (members must be users of the tenant). */
  async createGroup(write: ScimWrite, body: Record<string, unknown>): Promise<ScimAnswer> {
    const replayed = await this.replayed(write);
    if (replayed !== null) return this.groupResult(write, replayed.resourceId, replayed.status);
    const group = decodeScimGroup(body);
    const groupId = generateUuidV7(this.kernel.runtime.clock, this.kernel.runtime.random);
    const result = await this.apply(write, { kind: 'createGroup', groupId, ...group });
    return this.groupResult(write, result.resourceId, result.status);
  }

  /** PUT /Groups/{id}: display name, external id and the whole member list. */
  async replaceGroup(write: ScimWrite, id: string, body: Record<string, unknown>): Promise<ScimAnswer> {
    const replayed = await this.replayed(write);
    if (replayed !== null) return this.groupResult(write, id, replayed.status);
    const group = decodeScimGroup(body);
    const steps = [
      { kind: 'rename', displayName: group.displayName } as const,
      { kind: 'externalId', externalId: group.externalId } as const,
      { kind: 'replaceMembers', memberIds: group.memberIds } as const,
    ];
    await this.changeGroup(write, id, steps);
    return this.groupResult(write, id, 200);
  }

  /** PATCH /Groups/{id}: member deltas applied under the group's lock (204; 200 with a body when `attributes` asks). */
  async patchGroup(write: ScimWrite, id: string, body: Record<string, unknown>): Promise<ScimAnswer> {
    const steps = planScimGroupPatch(body);
    const result = (await this.replayed(write)) ?? (await this.changeGroup(write, id, steps));
    if (write.projection.attributes !== undefined) return this.groupResult(write, id, 200);
    return { status: 204, ...(result.version === null ? {} : { etag: etag(result.version) }) };
  }

  /** DELETE /Groups/{id}: its members lose the roles it granted (204). */
  async deleteGroup(write: ScimWrite, id: string): Promise<ScimAnswer> {
    if ((await this.replayed(write)) !== null) return { status: 204 };
    await this.apply(write, {
      kind: 'deleteGroup',
      groupId: id,
      expectedVersion: await this.expectedGroupVersion(write, id),
    });
    return { status: 204 };
  }

  private async changeGroup(
    write: ScimWrite,
    id: string,
    steps: Extract<ScimMutation, { kind: 'changeGroup' }>['steps'],
  ) {
    return this.apply(write, {
      kind: 'changeGroup',
      groupId: id,
      expectedVersion: await this.expectedGroupVersion(write, id),
      steps,
    });
  }

  /**
   * The version `If-Match` admits (412 when it names another, 404 when the group is missing), or
   * `null` without `If-Match`: then the store's locked read answers a missing group, no read before.
   */
  private async expectedGroupVersion(write: ScimWrite, id: string): Promise<number | null> {
    if (write.ifMatch === null) return null;
    const group = await read(() => this.kernel.store.findScimGroup(write.tenant, id));
    if (group === null) throw NOT_FOUND;
    if (!admits(write.ifMatch, group.version)) throw PRECONDITION_FAILED;
    return group.version;
  }

  private async rewriteUser(
    write: ScimWrite,
    id: string,
    next: (current: ScimUserAttributes) => ScimUserAttributes,
  ): Promise<ScimAnswer> {
    for (let attempt = 1; ; attempt++) {
      const user = await read(() => this.kernel.store.findScimUser(write.tenant, id));
      if (user === null) throw NOT_FOUND;
      if (!admits(write.ifMatch, user.version)) throw PRECONDITION_FAILED;
      const current = userAttributesOf(user);
      const attributes = next(current);
      if (JSON.stringify(attributes) === JSON.stringify(current))
        return this.userAnswer(write.tenant, user, 200, write.projection);
      try {
        const mutation: ScimMutation = {
          kind: 'replaceUser',
          scimUserId: id,
          expectedVersion: user.version,
          userDisplayName: identityDisplayName(attributes),
          attributes,
          emailsUnchanged: JSON.stringify(attributes.emails) === JSON.stringify(current.emails),
        };
        return await this.userResult(write, mutation, 200);
      } catch (error) {
        const lost = error instanceof ScimError && error.status === 412;
        if (!lost || write.ifMatch !== null || attempt >= PATCH_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * The first answer of a request whose `Idempotency-Key` was seen, read before anything else (a
   * retried DELETE is 204 again, a retried `If-Match` write not 412); another request under the
   * key → 409 `uniqueness`. The store checks again under its lock, so a race still commits once.
   */
  private async replayed(write: ScimWrite): Promise<ScimBatchResult | null> {
    const { receipt } = write;
    if (receipt === null) return null;
    const outcome = await read(() => this.kernel.store.findScimReplay(write.tenant, receipt));
    if (outcome === 'conflict') throw scimStoreFailure('idempotency_conflict');
    return outcome;
  }

  private async userReplay(write: ScimWrite, replayed: ScimBatchResult): Promise<ScimAnswer> {
    const user = await read(() => this.kernel.store.findScimUser(write.tenant, replayed.resourceId));
    if (user === null) throw NOT_FOUND;
    return this.userAnswer(write.tenant, user, replayed.status, write.projection);
  }

  private async apply(write: ScimWrite, mutation: ScimMutation) {
    try {
      return await applyScimMutation(this.kernel, write, mutation);
    } catch (error) {
      if (error instanceof ScimStoreFailure) throw scimStoreFailure(error.code);
      throw error;
    }
  }

  private async userResult(write: ScimWrite, mutation: ScimMutation, status: number): Promise<ScimAnswer> {
    const result = await this.apply(write, mutation);
    // The store hands back the user it wrote; a replayed create is read again.
    const user = result.user ?? (await read(() => this.kernel.store.findScimUser(write.tenant, result.resourceId)));
    if (user === null) throw NOT_FOUND;
    // The batch hands back the user's groups with the user (none after a create).
    return this.userAnswer(write.tenant, user, result.status === 201 ? 201 : status, write.projection, result.groups);
  }

  private async groupResult(write: ScimWrite, id: string, status: number): Promise<ScimAnswer> {
    const group = await read(() => this.kernel.store.findScimGroup(write.tenant, id));
    if (group === null) throw NOT_FOUND;
    return this.groupAnswer(write.tenant, group, status, write.projection);
  }

  private async userAnswer(
    tenant: ScimTenant,
    user: ScimUserRecord,
    status: number,
    projection: ScimProjectionParams,
    known?: readonly ScimUserGroup[],
  ): Promise<ScimAnswer> {
    const groups =
      known ??
      (wants(projection, 'groups') ? await read(() => this.kernel.store.listScimUserGroups(tenant, [user.id])) : []);
    const body = projectScimResource(renderScimUser(user, groups, this.base), projection, 'User');
    return {
      status,
      body,
      etag: etag(user.version),
      ...(status === 201 ? { location: `${this.base}/Users/${user.id}` } : {}),
    };
  }

  private async groupAnswer(
    tenant: ScimTenant,
    group: ScimGroupRecord,
    status: number,
    projection: ScimProjectionParams,
  ): Promise<ScimAnswer> {
    const members = wants(projection, 'members')
      ? await read(() => this.kernel.store.listScimGroupMembers(tenant, [group.id]))
      : [];
    const body = projectScimResource(renderScimGroup(group, members, this.base), projection, 'Group');
    return {
      status,
      body,
      etag: etag(group.version),
      ...(status === 201 ? { location: `${this.base}/Groups/${group.id}` } : {}),
    };
  }
}
