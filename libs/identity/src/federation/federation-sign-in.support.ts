import type { RequestFacts } from '../context/identity-call.js';
import { IdentityError } from '../errors/identity.errors.js';
import type { IdentityKernel } from '../identity-kernel.js';
import type { AuditEventInput } from '../store/identity-records.js';
import type { FederationProvider, SamlFederationProvider } from './federation-provider.js';
import { FederationProtocolError } from './federation-protocol.error.js';
import type { SamlIdpSettings } from './federation-protocols.js';

/**
 * The audit events of a completed federated sign-in, written in its transaction: `user.created`
 * and `membership.created` for a JIT user, `external_identity.linked` for a new link, then
 * `session.created` or `session.rotated` (a replacement continues its predecessor's family).
 *
 * @example
 * audits: (outcome) => signInAudits(kernel, call, provider, outcome),
 */
export function signInAudits(
  kernel: IdentityKernel,
  call: RequestFacts,
  provider: FederationProvider,
  outcome: Parameters<Parameters<IdentityKernel['store']['linkExternalIdentity']>[0]['audits']>[0],
): AuditEventInput[] {
  // A replacement continues its predecessor's family with counter + 1; a new family starts at 0.
  const rotated = outcome.session.rotationCounter > 0;
  const organizationId = provider.organizationId;
  const actor = { type: 'user' as const, userId: outcome.user.id };
  const event = (action: string, target: { type: string; id: string }, reasonCode?: string) =>
    kernel.audit.event(call.exchange, call.at, {
      actor,
      organizationId,
      action,
      target: target as never,
      ...(reasonCode === undefined ? {} : { reasonCode }),
    });
  const events: AuditEventInput[] = [];
  if (outcome.provisioned) {
    events.push(event('user.created', { type: 'user', id: outcome.user.id }, 'federation_jit'));
    events.push(event('membership.created', { type: 'membership', id: outcome.membership.id }, 'federation_jit'));
  }
  if (outcome.linked) {
    events.push(
      event('external_identity.linked', { type: 'external_identity', id: outcome.link.id }, provider.protocol),
    );
  }
  events.push(
    event(
      rotated ? 'session.rotated' : 'session.created',
      { type: 'session', id: outcome.session.id },
      provider.protocol,
    ),
  );
  return events;
}

/** The IdP settings of a SAML provider. */
export function samlIdp(provider: SamlFederationProvider): SamlIdpSettings {
  return {
    idpEntityId: provider.idpEntityId,
    ssoUrl: provider.ssoUrl,
    idpCertificatesPem: provider.idpCertificatesPem,
    signaturePolicy: provider.signaturePolicy,
  };
}

/** Runs a protocol step, mapping its failures: token/IdP → 401, configuration/network → 503. */
export async function protocolStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof IdentityError) throw error;
    if (error instanceof FederationProtocolError) {
      throw new IdentityError(
        error.failure === 'idp_error' || error.failure === 'token_invalid'
          ? 'invalid_credentials'
          : 'service_unavailable',
        { cause: error },
      );
    }
    throw new IdentityError('service_unavailable', { cause: error });
  }
}

/** Start: a disabled or mismatched provider or an inactive tenant is 404; storage trouble 503. */
export function startFailure(code: string): IdentityError {
  if (code === 'version_conflict' || code === 'unavailable' || code === 'internal') {
    return new IdentityError('service_unavailable');
  }
  return new IdentityError('not_found');
}

/** Callback: every refusal is 401 (identity-http §6), storage trouble 503. */
export function callbackFailure(code: string): IdentityError {
  if (code === 'unavailable' || code === 'internal') return new IdentityError('service_unavailable');
  return new IdentityError('invalid_credentials');
}
