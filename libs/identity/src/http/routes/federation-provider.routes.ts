import { IdentityError } from '../../errors/identity.errors.js';
import { PROVIDER_ID_PATTERN } from '../../federation/federation-provider.js';
import { decodeProviderBody, decodeProviderChange } from '../../federation/federation-provider.request.js';
import { providerView } from '../../federation/federation-provider.view.js';
import type { ListedFederationProvider } from '../../federation/federation-registry.js';
import { respondIdentityJson } from '../identity-response.js';
import { arrayOf, ref, type JsonSchema } from './route-doc.js';
import { route, type IdentityRouteTable, type RouteCall } from './route-table.js';

const PROVIDERS = '/identity/v1/organizations/:orgId/federation/providers';
const PROVIDER = `${PROVIDERS}/:providerId`;
const selfService = (kernel: RouteCall<unknown>['kernel']) => kernel.federation.selfService;

const TEXT = (max: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength: max });
const PEMS: JsonSchema = { type: 'array', minItems: 1, maxItems: 4, uniqueItems: true, items: { type: 'string' } };
const POLICY: JsonSchema = { enum: ['assertion', 'response', 'both', 'assertion_or_response'] };
const CREATE_BODY: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['providerId', 'protocol', 'displayName', 'issuer', 'clientId'],
      properties: {
        providerId: { type: 'string', pattern: PROVIDER_ID_PATTERN.source },
        protocol: { const: 'oidc' },
        displayName: TEXT(200),
        issuer: TEXT(2048),
        clientId: TEXT(200),
        clientSecret: TEXT(512),
        jit: { type: 'boolean', default: false },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['providerId', 'protocol', 'displayName'],
      properties: {
        providerId: { type: 'string', pattern: PROVIDER_ID_PATTERN.source },
        protocol: { const: 'saml' },
        displayName: TEXT(200),
        idpMetadataXml: { type: 'string', minLength: 1, maxLength: 524_288 },
        idpEntityId: TEXT(1024),
        ssoUrl: TEXT(2048),
        idpCertificatesPem: PEMS,
        signaturePolicy: { ...POLICY, default: 'assertion' },
        jit: { type: 'boolean', default: false },
      },
      description: 'Either `idpMetadataXml`, or `idpEntityId` + `ssoUrl` + `idpCertificatesPem`.',
    },
  ],
};
const CHANGE_BODY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    displayName: TEXT(200),
    jit: { type: 'boolean' },
    clientId: TEXT(200),
    clientSecret: { oneOf: [TEXT(512), { type: 'null' }] },
    idpMetadataXml: { type: 'string', minLength: 1, maxLength: 524_288 },
    ssoUrl: TEXT(2048),
    idpCertificatesPem: PEMS,
    signaturePolicy: POLICY,
  },
};

function providerIdOf(call: RouteCall<unknown>): string {
  const providerId = call.exchange.pathParam('providerId');
  if (providerId === undefined || !PROVIDER_ID_PATTERN.test(providerId)) throw new IdentityError('request_invalid');
  return providerId;
}

const view = (call: RouteCall<unknown>, listed: ListedFederationProvider) =>
  providerView(call.kernel.config.publicBaseUrl, listed);

/**
 * The providers an organization manages (issue 14, Deliver 4): owners and admins with
 * `external_identity.manage` (404 otherwise, like an unknown organization); every change also
 * needs a recent passkey (403 `step_up_required`). Views never carry a secret. Providers declared
 * in code are listed and can be disabled/enabled, but not changed or deleted (409).
 */
export const FEDERATION_PROVIDER_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: PROVIDERS,
    callers: { user: true },
    doc: {
      tag: 'federation',
      summary: 'An organization’s single sign-on providers',
      description: 'Needs `external_identity.manage` there.',
      responses: { 200: { description: 'The providers', body: arrayOf(ref('FederationProvider')) } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const listed = await call.services.federationProviders.list(call.caller().context, call.uuid('orgId'));
      respondIdentityJson(
        call.exchange,
        200,
        listed.map((entry) => view(call, entry)),
      );
    },
  }),
  route({
    method: 'POST',
    path: PROVIDERS,
    callers: { user: true },
    available: selfService,
    body: decodeProviderBody,
    doc: {
      tag: 'federation',
      summary: 'Register a single sign-on provider',
      description:
        'OIDC: discovery is fetched and validated now (unusable → 400, unreachable → 503); the client secret is sealed and never returned. SAML: IdP metadata XML, or entity id + SSO URL + certificates. In development and test an `http://localhost` issuer or SSO URL is allowed; staging and production require https and public addresses. The provider starts `enabled`.',
      requestBody: CREATE_BODY,
      responses: { 201: { description: 'The provider', body: ref('FederationProvider') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const created = await call.services.federationProviders.create(caller, organizationId, await call.body());
      respondIdentityJson(call.exchange, 201, view(call, created));
    },
  }),
  route({
    method: 'GET',
    path: PROVIDER,
    callers: { user: true },
    doc: {
      tag: 'federation',
      summary: 'One single sign-on provider',
      responses: { 200: { description: 'The provider', body: ref('FederationProvider') } },
      errors: ['not_found'],
    },
    handle: async (call) => {
      const context = call.caller().context;
      const listed = await call.services.federationProviders.get(context, call.uuid('orgId'), providerIdOf(call));
      respondIdentityJson(call.exchange, 200, view(call, listed));
    },
  }),
  route({
    method: 'PATCH',
    path: PROVIDER,
    callers: { user: true },
    available: selfService,
    body: decodeProviderChange,
    doc: {
      tag: 'federation',
      summary: 'Change a single sign-on provider',
      description:
        'Only the mutable fields; `providerId`, `protocol`, `issuer` and `idpEntityId` never change (400). Fields of the other protocol are 400; a provider declared in code is 409.',
      requestBody: CHANGE_BODY,
      responses: { 200: { description: 'The provider', body: ref('FederationProvider') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const organizationId = call.uuid('orgId');
      const providerId = providerIdOf(call);
      const changed = await call.services.federationProviders.update(
        caller,
        organizationId,
        providerId,
        await call.body(),
      );
      respondIdentityJson(call.exchange, 200, view(call, changed));
    },
  }),
  route({
    method: 'DELETE',
    path: PROVIDER,
    callers: { user: true },
    available: selfService,
    doc: {
      tag: 'federation',
      summary: 'Delete a single sign-on provider',
      description:
        'Disables the provider first (every session through it ends), then deletes the registration; links stay. Re-registering the same provider id with the same issuer enables it again with the advanced epoch; with another issuer it is 409.',
      responses: { 204: { description: 'Deleted' } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      await call.services.federationProviders.remove(call.caller(), call.uuid('orgId'), providerIdOf(call));
      call.exchange.respond({ status: 204, headers: { 'cache-control': 'no-store' } });
    },
  }),
  route({
    method: 'POST',
    path: `${PROVIDER}/disable`,
    callers: { user: true },
    doc: {
      tag: 'federation',
      summary: 'Disable a single sign-on provider (kill switch)',
      description:
        'No body. Advances the provider’s session epoch: every federated session through it is refused at once and stays invalid after a re-enable; sign-ins started before fail. Idempotent.',
      responses: { 200: { description: 'The provider (`disabled`)', body: ref('FederationProvider') } },
      errors: ['not_found', 'step_up_required', 'conflict'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const listed = await call.services.federationProviders.setState(
        caller,
        call.uuid('orgId'),
        providerIdOf(call),
        'disabled',
      );
      respondIdentityJson(call.exchange, 200, view(call, listed));
    },
  }),
  route({
    method: 'POST',
    path: `${PROVIDER}/enable`,
    callers: { user: true },
    doc: {
      tag: 'federation',
      summary: 'Enable a single sign-on provider',
      description: 'No body. The session epoch is kept: sessions ended by a disable stay ended. Idempotent.',
      responses: { 200: { description: 'The provider (`enabled`)', body: ref('FederationProvider') } },
      errors: ['not_found', 'step_up_required', 'conflict', 'request_invalid'],
    },
    handle: async (call) => {
      const caller = call.caller();
      const listed = await call.services.federationProviders.setState(
        caller,
        call.uuid('orgId'),
        providerIdOf(call),
        'enabled',
      );
      respondIdentityJson(call.exchange, 200, view(call, listed));
    },
  }),
];
