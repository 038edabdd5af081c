import type { Router } from '@tessera/web';
import { IdentityError } from '../../errors/identity.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import {
  decodeServiceCredentialBody,
  decodeServiceCredentialRotationBody,
  decodeServiceIdentityBody,
} from '../../service-identities/service-identity.request.js';
import { credentialView, serviceIdentityView } from '../../service-identities/service-identity.views.js';
import { scopesWithin } from '../../service-identities/service-scopes.js';
import type { ServiceCredentialRecord } from '../../store/identity-service.port.js';
import { generateUuidV7 } from '../../tokens/uuid-v7.generator.js';
import { respondIdentityJson } from '../identity-response.js';
import { callerGate, readIdentityJson, requestTime, requireContext, storeRead } from '../route-kit.js';
import { organizationFailure, pathUuid, requireOrganizationScope } from './organization-scope.js';
import { requireStep } from './step-up.js';
import {
  newServiceCredential,
  ownedServiceCredential,
  ownedServiceIdentity,
  requireDelegableScopes,
  requireIssuableScopes,
  serviceAudit,
  serviceIdentityPath,
} from './service-identity.scope.js';

const USER = callerGate({ user: true });
const READ = 'service_identity.read';
const MANAGE = 'service_identity.manage';
const IDENTITIES = '/identity/v1/organizations/:orgId/service-identities';
const IDENTITY = `${IDENTITIES}/:sid`;
const CREDENTIALS = `${IDENTITY}/credentials`;
const CREDENTIAL = `${CREDENTIALS}/:cid`;

/** Revocable: `active`, or `rotated` (still authenticating during the overlap). */
const revocable = (credential: ServiceCredentialRecord) =>
  credential.state === 'active' || credential.state === 'rotated';

/**
 * Routes 39–45 (identity-http §4.1, identity-model §5.8): service identities of an organization and
 * their credentials. Callers are user sessions (a service or device bearer gets 401 at stage 7);
 * stage 9 checks path ids and bodies (scopes outside the service allowlist, identity-owned or
 * recovery scopes and lifetimes beyond min(90 d, the configured maximum) are 400); stage 10 answers
 * every tenancy failure with the same 404 as an unknown organization, then STEP (403), then the
 * delegation rule (scopes ⊆ the actor's effective capabilities there, else 400). Routes 44 and 45
 * check that `{cid}` belongs to `{sid}` before the body. Tokens are shown once; only digests are
 * stored.
 *
 * @example
 * serviceIdentityRoutes(kernel, router);
 */
export function serviceIdentityRoutes(kernel: IdentityKernel, router: Router): Router {
  const maxLifetime = kernel.config.lifetimes.serviceCredentialMaxSeconds;

  router.get(IDENTITIES, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    requireOrganizationScope(context, organizationId, READ);
    const identities = await storeRead(() => kernel.store.listServiceIdentitiesForOrganization(organizationId));
    respondIdentityJson(exchange, 200, identities.map(serviceIdentityView));
  });

  router.post(IDENTITIES, USER, async (exchange) => {
    const context = requireContext(exchange);
    const organizationId = pathUuid(exchange, 'orgId');
    const body = decodeServiceIdentityBody(await readIdentityJson(kernel, exchange), maxLifetime);
    if (body === undefined) throw new IdentityError('request_invalid');
    requireIssuableScopes(kernel, body.capabilities);
    requireOrganizationScope(context, organizationId, MANAGE);
    requireStep(kernel, context);
    requireDelegableScopes(context, body.capabilities);
    const at = requestTime(exchange);
    const id = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const { credential, token } = newServiceCredential(kernel, at, id, body.capabilities, body.lifetimeSeconds);
    const audit = (action: string, target: { type: 'service_identity' | 'service_credential'; id: string }) =>
      serviceAudit(kernel, exchange, at, context, organizationId, action, target);
    const result = await kernel.store.createServiceIdentity({
      identity: {
        id,
        organizationId,
        name: body.name,
        description: body.description ?? null,
        capabilities: body.capabilities,
      },
      credential,
      at,
      audits: [
        audit('service_identity.created', { type: 'service_identity', id }),
        audit('service_credential.created', { type: 'service_credential', id: credential.id }),
      ],
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 201, {
      identity: serviceIdentityView(result.value.identity),
      credential: credentialView(result.value.credential, at),
      token,
    });
  });

  router.delete(IDENTITY, USER, async (exchange) => {
    const context = requireContext(exchange);
    const path = serviceIdentityPath(exchange);
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path, (i) => i.state !== 'revoked');
    requireStep(kernel, context);
    const at = requestTime(exchange);
    const result = await kernel.store.mutateServiceIdentity({
      serviceIdentityId: identity.id,
      organizationId: path.organizationId,
      expectedVersion: identity.version,
      change: { kind: 'revoke' },
      at,
      audit: serviceAudit(kernel, exchange, at, context, path.organizationId, 'service_identity.revoked', {
        type: 'service_identity',
        id: identity.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, serviceIdentityView(result.value.identity));
  });

  router.get(CREDENTIALS, USER, async (exchange) => {
    const context = requireContext(exchange);
    const path = serviceIdentityPath(exchange);
    requireOrganizationScope(context, path.organizationId, READ);
    const identity = await ownedServiceIdentity(kernel, path);
    const credentials = await storeRead(() => kernel.store.listServiceCredentialsForIdentity(identity.id));
    const at = requestTime(exchange);
    respondIdentityJson(
      exchange,
      200,
      credentials.map((credential) => credentialView(credential, at)),
    );
  });

  router.post(CREDENTIALS, USER, async (exchange) => {
    const context = requireContext(exchange);
    const path = serviceIdentityPath(exchange);
    const body = decodeServiceCredentialBody(await readIdentityJson(kernel, exchange), maxLifetime);
    if (body === undefined) throw new IdentityError('request_invalid');
    requireIssuableScopes(kernel, body.capabilities);
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path, (i) => i.state === 'active');
    requireStep(kernel, context);
    requireDelegableScopes(context, body.capabilities);
    if (!scopesWithin(body.capabilities, identity.capabilities)) throw new IdentityError('not_found');
    const at = requestTime(exchange);
    const { credential, token } = newServiceCredential(
      kernel,
      at,
      identity.id,
      body.capabilities,
      body.lifetimeSeconds,
    );
    const result = await kernel.store.createServiceCredential({
      organizationId: path.organizationId,
      credential,
      at,
      audit: serviceAudit(kernel, exchange, at, context, path.organizationId, 'service_credential.created', {
        type: 'service_credential',
        id: credential.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 201, { credential: credentialView(result.value, at), token });
  });

  router.post(`${CREDENTIAL}/rotate`, USER, async (exchange) => {
    const context = requireContext(exchange);
    const path = serviceIdentityPath(exchange);
    const credentialId = pathUuid(exchange, 'cid');
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path, (i) => i.state === 'active');
    const at = requestTime(exchange);
    const old = await ownedServiceCredential(
      kernel,
      identity,
      credentialId,
      (c) => c.state === 'active' && at.getTime() < c.expiresAt.getTime(),
    );
    const body = decodeServiceCredentialRotationBody(await readIdentityJson(kernel, exchange), maxLifetime);
    if (body === undefined) throw new IdentityError('request_invalid');
    requireStep(kernel, context);
    requireIssuableScopes(kernel, old.capabilities);
    requireDelegableScopes(context, old.capabilities);
    const { credential, token } = newServiceCredential(kernel, at, identity.id, old.capabilities, body.lifetimeSeconds);
    const result = await kernel.store.rotateServiceCredential({
      serviceIdentityId: identity.id,
      credentialId: old.id,
      replacement: { id: credential.id, secretDigest: credential.secretDigest, expiresAt: credential.expiresAt },
      at,
      audit: serviceAudit(kernel, exchange, at, context, path.organizationId, 'service_credential.rotated', {
        type: 'service_credential',
        id: old.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, { credential: credentialView(result.value.credential, at), token });
  });

  router.delete(CREDENTIAL, USER, async (exchange) => {
    const context = requireContext(exchange);
    const path = serviceIdentityPath(exchange);
    const credentialId = pathUuid(exchange, 'cid');
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path);
    const credential = await ownedServiceCredential(kernel, identity, credentialId, revocable);
    requireStep(kernel, context);
    const at = requestTime(exchange);
    const result = await kernel.store.revokeServiceCredential({
      serviceIdentityId: identity.id,
      credentialId: credential.id,
      at,
      audit: serviceAudit(kernel, exchange, at, context, path.organizationId, 'service_credential.revoked', {
        type: 'service_credential',
        id: credential.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    respondIdentityJson(exchange, 200, credentialView(result.value, at));
  });
  return router;
}
