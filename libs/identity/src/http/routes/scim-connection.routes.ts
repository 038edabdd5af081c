import { SCIM_GROUP_ROLE_SCHEMA } from '../openapi/openapi-scim.components.js';
import { decodeScimConnectionBody, SCIM_PROVIDER_NAME } from '../../scim/scim-connection.request.js';
import { scimConnectionView } from '../../scim/scim-connection.view.js';
import type { IssuedScimConnection } from '../../scim/scim-connections.service.js';
import { respondIdentityJson } from '../identity-response.js';
import { arrayOf, ref, type JsonSchema } from './route-doc.js';
import { route, type IdentityRouteTable, type RouteCall } from './route-table.js';

const CONNECTIONS = '/identity/v1/organizations/:orgId/scim/connections';
const CONNECTION = `${CONNECTIONS}/:connectionId`;
const enabled = (kernel: RouteCall<unknown>['kernel']) => kernel.scim.enabled;

const CREATE_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['providerName', 'groupRoles'],
  properties: {
    providerName: { type: 'string', pattern: SCIM_PROVIDER_NAME.source },
    groupRoles: { ...arrayOf(SCIM_GROUP_ROLE_SCHEMA), maxItems: 100 },
  },
};

const issued = (call: RouteCall<unknown>, result: IssuedScimConnection) => ({
  connection: scimConnectionView(call.kernel.config.publicBaseUrl, result.connection),
  token: result.token,
});

/**
 * The SCIM connections of an organization (issue 15, Deliver 2): owners and admins with
 * `scim.manage` (404 otherwise, like an unknown organization); create, rotate and revoke also need
 * a recent passkey (403 `step_up_required`). Tokens appear only in the create and rotate answers.
 */
export const SCIM_CONNECTION_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: CONNECTIONS,
    callers: { user: true },
    available: enabled,
    doc: {
      tag: 'scim',
      summary: 'An organization’s SCIM connections',
      description: 'Needs `scim.manage` there. Never a token or a digest.',
      responses: { 200: { description: 'The connections, oldest first', body: arrayOf(ref('ScimConnection')) } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const base = call.kernel.config.publicBaseUrl;
      const listed = await call.services.scimConnections.list(call.caller().context, call.uuid('orgId'));
      respondIdentityJson(
        call.exchange,
        200,
        listed.map((connection) => scimConnectionView(base, connection)),
      );
    },
  }),
  route({
    method: 'POST',
    path: CONNECTIONS,
    callers: { user: true },
    available: enabled,
    body: decodeScimConnectionBody,
    doc: {
      tag: 'scim',
      summary: 'Create a SCIM connection',
      description:
        '`providerName` names the identity provider (`okta`, `entra`, `generic`, …; one active connection per name). `groupRoles` maps SCIM groups to roles: a provisioned user gets the highest role of their groups, default `viewer` (`owner` is never granted). The bearer `token` is returned once.',
      requestBody: CREATE_BODY,
      responses: { 201: { description: 'The connection and its token', body: ref('IssuedScimConnection') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const body = await call.body();
      respondIdentityJson(
        call.exchange,
        201,
        issued(call, await call.services.scimConnections.create(caller, organizationId, body)),
      );
    },
  }),
  route({
    method: 'DELETE',
    path: CONNECTION,
    callers: { user: true },
    available: enabled,
    doc: {
      tag: 'scim',
      summary: 'Revoke a SCIM connection',
      description: 'Its tokens stop working at once; provisioned users stay. A revoked connection answers 404.',
      responses: { 200: { description: 'The revoked connection', body: ref('ScimConnection') } },
      errors: ['not_found', 'step_up_required'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const revoked = await call.services.scimConnections.revoke(caller, call.uuid('orgId'), call.uuid('connectionId'));
      respondIdentityJson(call.exchange, 200, scimConnectionView(call.kernel.config.publicBaseUrl, revoked));
    },
  }),
  route({
    method: 'POST',
    path: `${CONNECTION}/rotate`,
    callers: { user: true },
    available: enabled,
    doc: {
      tag: 'scim',
      summary: 'Rotate a SCIM connection’s token',
      description: 'A new token, returned once; the previous token keeps working for 10 more minutes.',
      responses: { 200: { description: 'The connection and its new token', body: ref('IssuedScimConnection') } },
      errors: ['not_found', 'step_up_required'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const rotated = await call.services.scimConnections.rotate(caller, call.uuid('orgId'), call.uuid('connectionId'));
      respondIdentityJson(call.exchange, 200, issued(call, rotated));
    },
  }),
];
