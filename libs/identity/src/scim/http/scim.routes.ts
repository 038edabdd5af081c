import type { Exchange } from '@tessera/web';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { ScimRequestTenant } from '../scim-authentication.js';
import type { ScimDiscovery } from '../scim-discovery.js';
import type { ScimAnswer } from '../scim-answer.js';
import type { IdentityScim, ScimWrite } from '../scim.service.js';
import { ScimError } from '../scim.errors.js';
import { groupListQuery, projectionOf, userListQuery } from './scim-list.params.js';

/** What a SCIM handler receives. */
export interface ScimCall {
  readonly exchange: Exchange;
  readonly kernel: IdentityKernel;
  readonly scim: IdentityScim;
  readonly discovery: ScimDiscovery;
  readonly at: Date;
  /** The authenticated tenant (a discovery route has none and must not call it). */
  tenant(): ScimRequestTenant;
  /** Case-insensitive known query parameters (read after authentication). */
  params(): Map<string, string>;
  /** The `{id}` path segment. */
  id(): string;
  /** The mutation context (preconditions, idempotency receipt over the body) and the body. */
  write(withBody: boolean): Promise<{ write: ScimWrite; body: Record<string, unknown> }>;
  /** `If-None-Match` versions of a GET (`null` when absent). */
  ifNoneMatch(): readonly (number | '*')[] | null;
}

/** One SCIM route as data: method, path, whether it needs a tenant, and its handler. */
export interface ScimRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** Discovery answers without authentication (RFC 7644 §4 allows it; nothing tenant-specific). */
  readonly authenticated: boolean;
  handle(call: ScimCall): Promise<ScimAnswer>;
}

const NOT_FOUND = new ScimError(404, undefined, 'The resource was not found');

function found(document: Record<string, unknown> | undefined): ScimAnswer {
  if (document === undefined) throw NOT_FOUND;
  return { status: 200, body: document };
}

/**
 * The SCIM 2.0 routes under `/scim/v2` (identity-http §7 as changed by issue 15): Users and Groups
 * (list with filters, create, read, replace, patch, delete) and the three discovery endpoints.
 */
export const SCIM_ROUTES: readonly ScimRoute[] = [
  {
    method: 'GET',
    path: '/scim/v2/ServiceProviderConfig',
    authenticated: false,
    handle: async (call) => found(call.discovery.serviceProviderConfig),
  },
  {
    method: 'GET',
    path: '/scim/v2/ResourceTypes',
    authenticated: false,
    handle: async (call) => found(call.discovery.resourceTypes),
  },
  {
    method: 'GET',
    path: '/scim/v2/ResourceTypes/:id',
    authenticated: false,
    handle: async (call) => found(call.discovery.resourceType.get(call.id().toLowerCase())),
  },
  {
    method: 'GET',
    path: '/scim/v2/Schemas',
    authenticated: false,
    handle: async (call) => found(call.discovery.schemas),
  },
  {
    method: 'GET',
    path: '/scim/v2/Schemas/:id',
    authenticated: false,
    handle: async (call) => found(call.discovery.schema.get(call.id().toLowerCase())),
  },
  {
    method: 'GET',
    path: '/scim/v2/Users',
    authenticated: true,
    handle: (call) =>
      call.scim.listUsers(
        call.tenant().tenant,
        userListQuery(call.params(), call.kernel.scim.maxPageSize),
        projectionOf(call.params()),
      ),
  },
  {
    method: 'POST',
    path: '/scim/v2/Users',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.createUser(write, body);
    },
  },
  {
    method: 'GET',
    path: '/scim/v2/Users/:id',
    authenticated: true,
    handle: (call) =>
      call.scim.getUser(call.tenant().tenant, call.id(), projectionOf(call.params()), call.ifNoneMatch()),
  },
  {
    method: 'PUT',
    path: '/scim/v2/Users/:id',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.replaceUser(write, call.id(), body);
    },
  },
  {
    method: 'PATCH',
    path: '/scim/v2/Users/:id',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.patchUser(write, call.id(), body);
    },
  },
  {
    method: 'DELETE',
    path: '/scim/v2/Users/:id',
    authenticated: true,
    handle: async (call) => call.scim.deleteUser((await call.write(false)).write, call.id()),
  },
  {
    method: 'GET',
    path: '/scim/v2/Groups',
    authenticated: true,
    handle: (call) =>
      call.scim.listGroups(
        call.tenant().tenant,
        groupListQuery(call.params(), call.kernel.scim.maxPageSize),
        projectionOf(call.params()),
      ),
  },
  {
    method: 'POST',
    path: '/scim/v2/Groups',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.createGroup(write, body);
    },
  },
  {
    method: 'GET',
    path: '/scim/v2/Groups/:id',
    authenticated: true,
    handle: (call) =>
      call.scim.getGroup(call.tenant().tenant, call.id(), projectionOf(call.params()), call.ifNoneMatch()),
  },
  {
    method: 'PUT',
    path: '/scim/v2/Groups/:id',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.replaceGroup(write, call.id(), body);
    },
  },
  {
    method: 'PATCH',
    path: '/scim/v2/Groups/:id',
    authenticated: true,
    handle: async (call) => {
      const { write, body } = await call.write(true);
      return call.scim.patchGroup(write, call.id(), body);
    },
  },
  {
    method: 'DELETE',
    path: '/scim/v2/Groups/:id',
    authenticated: true,
    handle: async (call) => call.scim.deleteGroup((await call.write(false)).write, call.id()),
  },
];
