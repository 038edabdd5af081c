import type { IdentityCall } from '../context/identity-call.js';
import type { IdentityContext } from '../context/identity-context.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import { storeRead } from '../http/route-kit.js';
import { organizationFailure, requireOrganizationScope } from '../organizations/organization-scope.js';
import type { IdentitySessions } from '../sessions/session.service.js';
import type { ServiceCredentialRecord, ServiceIdentityRecord } from '../store/identity-service.port.js';
import { generateUuidV7 } from '../tokens/uuid-v7.generator.js';
import type {
  ServiceCredentialBody,
  ServiceCredentialRotationBody,
  ServiceIdentityBody,
} from './service-identity.request.js';
import {
  newServiceCredential,
  ownedServiceCredential,
  ownedServiceIdentity,
  requireDelegableScopes,
  requireIssuableScopes,
  serviceAudit,
  type ServiceIdentityPath,
} from './service-identity.scope.js';
import { scopesWithin } from './service-scopes.js';

const READ = 'service_identity.read';
const MANAGE = 'service_identity.manage';

/** A credential just issued, with its token (shown once). */
export interface IssuedServiceCredential {
  readonly credential: ServiceCredentialRecord;
  readonly token: string;
}

/** Revocable: `active`, or `rotated` (still authenticating during the overlap). */
const revocable = (credential: ServiceCredentialRecord) =>
  credential.state === 'active' || credential.state === 'rotated';

/**
 * The service-identities domain (routes 39–45, identity-http §4.1, identity-model §5.8). Order of
 * checks: issuance rules of configuration (400), tenancy (the same 404 as an unknown
 * organization), STEP (403), the delegation rule (scopes ⊆ the actor's effective capabilities
 * there, else 400). Tokens are shown once; only digests are stored.
 *
 * @example
 * const { identity, credential, token } = await serviceIdentities.create(call, organizationId, body);
 */
export class IdentityServiceIdentities {
  constructor(
    private readonly kernel: IdentityKernel,
    private readonly sessions: IdentitySessions,
  ) {}

  /** Route 39. */
  list(context: IdentityContext, organizationId: string): Promise<ServiceIdentityRecord[]> {
    requireOrganizationScope(context, organizationId, READ);
    return storeRead(() => this.kernel.store.listServiceIdentitiesForOrganization(organizationId));
  }

  /** Route 40: a service identity and its first credential. */
  async create(
    call: IdentityCall,
    organizationId: string,
    body: ServiceIdentityBody,
  ): Promise<IssuedServiceCredential & { identity: ServiceIdentityRecord }> {
    const { kernel } = this;
    const { context, at } = call;
    requireIssuableScopes(kernel, body.capabilities);
    requireOrganizationScope(context, organizationId, MANAGE);
    this.sessions.requireStep(context);
    requireDelegableScopes(context, body.capabilities);
    const id = generateUuidV7(kernel.runtime.clock, kernel.runtime.random);
    const { credential, token } = newServiceCredential(kernel, at, id, body.capabilities, body.lifetimeSeconds);
    const audit = (action: string, target: { type: 'service_identity' | 'service_credential'; id: string }) =>
      serviceAudit(kernel, call, organizationId, action, target);
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
    return { identity: result.value.identity, credential: result.value.credential, token };
  }

  /** Route 41: revokes a non-revoked service identity. */
  async revoke(call: IdentityCall, path: ServiceIdentityPath): Promise<ServiceIdentityRecord> {
    requireOrganizationScope(call.context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(this.kernel, path, (i) => i.state !== 'revoked');
    this.sessions.requireStep(call.context);
    const result = await this.kernel.store.mutateServiceIdentity({
      serviceIdentityId: identity.id,
      organizationId: path.organizationId,
      expectedVersion: identity.version,
      change: { kind: 'revoke' },
      at: call.at,
      audit: serviceAudit(this.kernel, call, path.organizationId, 'service_identity.revoked', {
        type: 'service_identity',
        id: identity.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value.identity;
  }

  /** Route 42. */
  async listCredentials(context: IdentityContext, path: ServiceIdentityPath): Promise<ServiceCredentialRecord[]> {
    requireOrganizationScope(context, path.organizationId, READ);
    const identity = await ownedServiceIdentity(this.kernel, path);
    return storeRead(() => this.kernel.store.listServiceCredentialsForIdentity(identity.id));
  }

  /** Route 43: a new credential of an active identity, its scopes within the identity's. */
  async createCredential(
    call: IdentityCall,
    path: ServiceIdentityPath,
    body: ServiceCredentialBody,
  ): Promise<IssuedServiceCredential> {
    const { kernel } = this;
    const { context, at } = call;
    requireIssuableScopes(kernel, body.capabilities);
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path, (i) => i.state === 'active');
    this.sessions.requireStep(context);
    requireDelegableScopes(context, body.capabilities);
    if (!scopesWithin(body.capabilities, identity.capabilities)) throw new IdentityError('not_found');
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
      audit: serviceAudit(kernel, call, path.organizationId, 'service_credential.created', {
        type: 'service_credential',
        id: credential.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return { credential: result.value, token };
  }

  /**
   * Route 44: `{cid}` must be an active, unexpired credential of `{sid}` (404) before the body is
   * read (`readBody`, 400), then STEP and the scope rules over the old credential's scopes.
   */
  async rotateCredential(
    call: IdentityCall,
    path: ServiceIdentityPath,
    credentialId: string,
    readBody: () => Promise<ServiceCredentialRotationBody>,
  ): Promise<IssuedServiceCredential> {
    const { kernel } = this;
    const { context, at } = call;
    requireOrganizationScope(context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(kernel, path, (i) => i.state === 'active');
    const old = await ownedServiceCredential(
      kernel,
      identity,
      credentialId,
      (c) => c.state === 'active' && at.getTime() < c.expiresAt.getTime(),
    );
    const body = await readBody();
    this.sessions.requireStep(context);
    requireIssuableScopes(kernel, old.capabilities);
    requireDelegableScopes(context, old.capabilities);
    const { credential, token } = newServiceCredential(kernel, at, identity.id, old.capabilities, body.lifetimeSeconds);
    const result = await kernel.store.rotateServiceCredential({
      serviceIdentityId: identity.id,
      credentialId: old.id,
      replacement: { id: credential.id, secretDigest: credential.secretDigest, expiresAt: credential.expiresAt },
      at,
      audit: serviceAudit(kernel, call, path.organizationId, 'service_credential.rotated', {
        type: 'service_credential',
        id: old.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return { credential: result.value.credential, token };
  }

  /** Route 45: revokes an active or rotated credential of `{sid}`. */
  async revokeCredential(
    call: IdentityCall,
    path: ServiceIdentityPath,
    credentialId: string,
  ): Promise<ServiceCredentialRecord> {
    requireOrganizationScope(call.context, path.organizationId, MANAGE);
    const identity = await ownedServiceIdentity(this.kernel, path);
    const credential = await ownedServiceCredential(this.kernel, identity, credentialId, revocable);
    this.sessions.requireStep(call.context);
    const result = await this.kernel.store.revokeServiceCredential({
      serviceIdentityId: identity.id,
      credentialId: credential.id,
      at: call.at,
      audit: serviceAudit(this.kernel, call, path.organizationId, 'service_credential.revoked', {
        type: 'service_credential',
        id: credential.id,
      }),
    });
    if (!result.ok) throw organizationFailure(result.code);
    return result.value;
  }
}
