import {
  decodeServiceCredentialBody,
  decodeServiceCredentialRotationBody,
  decodeServiceIdentityBody,
  type ServiceCredentialRotationBody,
} from '../../service-identities/service-identity.request.js';
import type { ServiceIdentityPath } from '../../service-identities/service-identity.scope.js';
import { credentialView, serviceIdentityView } from '../../service-identities/service-identity.views.js';
import { respondIdentityJson } from '../identity-response.js';
import { route, type IdentityRouteTable, type RouteCall } from './route-table.js';
import { arrayOf, ref, type JsonSchema } from './route-doc.js';

const IDENTITIES = '/identity/v1/organizations/:orgId/service-identities';
const IDENTITY = `${IDENTITIES}/:sid`;
const CREDENTIALS = `${IDENTITY}/credentials`;
const CREDENTIAL = `${CREDENTIALS}/:cid`;
const CAPABILITIES: JsonSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 64,
  uniqueItems: true,
  items: { $ref: '#/components/schemas/Capability', minLength: 3 },
};
const LIFETIME: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: 7_776_000,
  description: 'Seconds; at most min(90 days, the configured maximum).',
};
const closed = (required: string[], properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  ...(required.length === 0 ? {} : { required }),
  properties,
});
const maxLifetime = (kernel: RouteCall<unknown>['kernel']) => kernel.config.lifetimes.serviceCredentialMaxSeconds;

/** Stage 9 path ids of `/organizations/{orgId}/service-identities/{sid}[/…]` (all canonical UUIDv7, else 400). */
const pathOf = (call: RouteCall<unknown>): ServiceIdentityPath => ({
  organizationId: call.uuid('orgId'),
  serviceIdentityId: call.uuid('sid'),
});

/**
 * Service-identity routes 39–45 (identity-http §4.1, identity-model §5.8). Callers are user
 * sessions (a service or device bearer gets 401 at stage 7); scopes outside the service allowlist,
 * identity-owned or recovery scopes and lifetimes beyond min(90 d, the configured maximum) are 400.
 * Routes 44 and 45 check that `{cid}` belongs to `{sid}` before the body. Tokens are shown once.
 */
export const SERVICE_IDENTITY_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: IDENTITIES,
    doc: {
      tag: 'service-identities',
      summary: 'An organization’s service identities',
      description: 'Needs `service_identity.read` there.',
      responses: { 200: { description: 'The service identities', body: arrayOf(ref('ServiceIdentity')) } },
      errors: ['not_found'],
    },
    callers: { user: true },
    handle: async (call) => {
      const identities = await call.services.serviceIdentities.list(call.caller().context, call.uuid('orgId'));
      respondIdentityJson(call.exchange, 200, identities.map(serviceIdentityView));
    },
  }),
  route({
    method: 'POST',
    path: IDENTITIES,
    callers: { user: true },
    body: (json, kernel) => decodeServiceIdentityBody(json, maxLifetime(kernel)),
    doc: {
      tag: 'service-identities',
      summary: 'Create a service identity with its first credential',
      description:
        'Needs `service_identity.manage` and a recent passkey verification. Capabilities must be in the service allowlist and delegable; the lifetime at most min(90 days, the configured maximum).',
      requestBody: closed(['name', 'capabilities'], {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        description: { type: 'string', maxLength: 2000 },
        capabilities: CAPABILITIES,
        lifetimeSeconds: LIFETIME,
      }),
      responses: {
        201: {
          description: 'The identity, its credential and the token (shown once)',
          body: ref('ServiceIdentityCreated'),
        },
      },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const created = await call.services.serviceIdentities.create(caller, organizationId, await call.body());
      respondIdentityJson(call.exchange, 201, {
        identity: serviceIdentityView(created.identity),
        credential: credentialView(created.credential, call.at),
        token: created.token,
      });
    },
  }),
  route({
    method: 'DELETE',
    path: IDENTITY,
    callers: { user: true },
    doc: {
      tag: 'service-identities',
      summary: 'Revoke a service identity',
      description: 'Every active credential of the identity is revoked with it.',
      responses: { 200: { description: 'The service identity (state `revoked`)', body: ref('ServiceIdentity') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const revoked = await call.services.serviceIdentities.revoke(call.caller(), pathOf(call));
      respondIdentityJson(call.exchange, 200, serviceIdentityView(revoked));
    },
  }),
  route({
    method: 'GET',
    path: CREDENTIALS,
    callers: { user: true },
    doc: {
      tag: 'service-identities',
      summary: 'A service identity’s credentials',
      responses: { 200: { description: 'The credentials', body: arrayOf(ref('ServiceCredential')) } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const credentials = await call.services.serviceIdentities.listCredentials(call.caller().context, pathOf(call));
      respondIdentityJson(
        call.exchange,
        200,
        credentials.map((credential) => credentialView(credential, call.at)),
      );
    },
  }),
  route({
    method: 'POST',
    path: CREDENTIALS,
    callers: { user: true },
    body: (json, kernel) => decodeServiceCredentialBody(json, maxLifetime(kernel)),
    doc: {
      tag: 'service-identities',
      summary: 'Issue another credential for a service identity',
      description: 'The capabilities must be a subset of the identity’s.',
      requestBody: closed(['capabilities'], { capabilities: CAPABILITIES, lifetimeSeconds: LIFETIME }),
      responses: {
        201: { description: 'The credential and its token (shown once)', body: ref('ServiceCredentialIssued') },
      },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const path = pathOf(call);
      const issued = await call.services.serviceIdentities.createCredential(caller, path, await call.body());
      respondIdentityJson(call.exchange, 201, {
        credential: credentialView(issued.credential, call.at),
        token: issued.token,
      });
    },
  }),
  route({
    method: 'POST',
    path: `${CREDENTIAL}/rotate`,
    callers: { user: true },
    body: (json, kernel): ServiceCredentialRotationBody | undefined =>
      decodeServiceCredentialRotationBody(json, maxLifetime(kernel)),
    doc: {
      tag: 'service-identities',
      summary: 'Rotate a credential',
      description:
        'The old credential stays valid for the configured overlap. `{cid}` must belong to `{sid}` (404, checked before the body).',
      requestBody: closed([], { lifetimeSeconds: LIFETIME }),
      responses: {
        200: { description: 'The new credential and its token (shown once)', body: ref('ServiceCredentialIssued') },
      },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const path = pathOf(call);
      const credentialId = call.uuid('cid');
      const issued = await call.services.serviceIdentities.rotateCredential(caller, path, credentialId, call.body);
      respondIdentityJson(call.exchange, 200, {
        credential: credentialView(issued.credential, call.at),
        token: issued.token,
      });
    },
  }),
  route({
    method: 'DELETE',
    path: CREDENTIAL,
    callers: { user: true },
    doc: {
      tag: 'service-identities',
      summary: 'Revoke a credential',
      responses: { 200: { description: 'The credential (state `revoked`)', body: ref('ServiceCredential') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const path = pathOf(call);
      const revoked = await call.services.serviceIdentities.revokeCredential(caller, path, call.uuid('cid'));
      respondIdentityJson(call.exchange, 200, credentialView(revoked, call.at));
    },
  }),
];
