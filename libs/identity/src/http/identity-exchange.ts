import type { Exchange } from '@tessera/web';
import type { IdentityContext } from '../context/identity-context.js';
import type { RecordedCredentialFailure } from '../guards/identity-decisions.js';

/** Exchange attribute keys used by the identity pipeline (namespaced; hosts must not write them). */
export const IDENTITY_ATTRIBUTES = Object.freeze({
  requestId: 'tessera.identity.requestId',
  requestTime: 'tessera.identity.requestTime',
  context: 'tessera.identity.context',
  credentialFailure: 'tessera.identity.credentialFailure',
  clientAddress: 'tessera.identity.clientAddress',
  trustedProxy: 'tessera.identity.trustedProxy',
  sessionCookiePresent: 'tessera.identity.sessionCookiePresent',
});

/** The request id established by `identityRequestId` (stage 1), if any. */
export function getRequestId(exchange: Exchange): string | undefined {
  return exchange.attributes.get(IDENTITY_ATTRIBUTES.requestId) as string | undefined;
}

/** The instant captured by `identityRequestTime` (stage 2), if any. */
export function getRequestTime(exchange: Exchange): Date | undefined {
  return exchange.attributes.get(IDENTITY_ATTRIBUTES.requestTime) as Date | undefined;
}

/** The resolved identity (stage 4); `undefined` for anonymous requests. */
export function getIdentityContext(exchange: Exchange): IdentityContext | undefined {
  return exchange.attributes.get(IDENTITY_ATTRIBUTES.context) as IdentityContext | undefined;
}

/** The cookie failure recorded when a stale cookie was treated as absent (identity-http §2.1). */
export function getRecordedCredentialFailure(exchange: Exchange): RecordedCredentialFailure | undefined {
  return exchange.attributes.get(IDENTITY_ATTRIBUTES.credentialFailure) as RecordedCredentialFailure | undefined;
}
