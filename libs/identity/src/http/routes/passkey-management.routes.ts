import type { Exchange, Router } from '@tessera/web';
import type { IdentityContext } from '../../context/identity-context.js';
import { IdentityError } from '../../errors/identity.errors.js';
import { mapStoreError } from '../../errors/store.errors.js';
import { decideRecentPasskey } from '../../guards/identity-decisions.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import type { CredentialRecord } from '../../store/identity-records.js';
import { respondIdentityJson } from '../identity-response.js';
import { passkeyView } from '../identity-views.js';
import { isUuidV7 } from '../request-fields.js';
import { callerGate, readIdentityBody, requestTime, requireContext, storeRead } from '../route-kit.js';

const USER = callerGate({ user: true });
const RENAME_BODY = { name: { kind: 'text', min: 1, max: 200 } } as const;

/**
 * Stage 10 STEP rule (identity-http §3): a passkey or step-up session authenticated within the
 * recent-passkey window, else 403 `step_up_required`.
 *
 * @example
 * requireStep(kernel, context);
 */
export function requireStep(kernel: IdentityKernel, context: IdentityContext): void {
  const decision = decideRecentPasskey(context, kernel.config.lifetimes.stepUpWindowSeconds);
  if (!decision.allow) throw new IdentityError(decision.code);
}

/**
 * Routes 13–15 (identity-http §4.1): list the caller's passkeys (oldest first), rename one
 * (no step-up), revoke one (step-up). Another user's or a non-active passkey is 404.
 *
 * @example
 * passkeyManagementRoutes(kernel, router);
 */
export function passkeyManagementRoutes(kernel: IdentityKernel, router: Router): Router {
  const owned = async (exchange: Exchange, context: IdentityContext): Promise<CredentialRecord> => {
    const credentialId = exchange.pathParam('credentialId')!;
    if (!isUuidV7(credentialId)) throw new IdentityError('request_invalid');
    const credential = await storeRead(() => kernel.store.findCredential(credentialId));
    if (credential === null || credential.userId !== context.principal.id || credential.state !== 'active')
      throw new IdentityError('not_found');
    return credential;
  };
  const mutate = async (
    exchange: Exchange,
    context: IdentityContext,
    credential: CredentialRecord,
    change: { kind: 'rename'; name: string } | { kind: 'revoke' },
  ) => {
    const at = requestTime(exchange);
    const result = await kernel.store.mutateCredential({
      credentialId: credential.id,
      userId: context.principal.id,
      expectedVersion: credential.version,
      change,
      at,
      audit: kernel.audit.event(exchange, at, {
        actor: { type: 'user', userId: context.principal.id },
        action: change.kind === 'rename' ? 'credential.renamed' : 'credential.revoked',
        target: { type: 'credential', id: credential.id },
      }),
    });
    if (result.ok) return respondIdentityJson(exchange, 200, passkeyView(result.value));
    if (result.code === 'not_found' || result.code === 'invalid_transition') throw new IdentityError('not_found');
    throw new IdentityError(mapStoreError(result.code, 'identity'));
  };

  router.get('/identity/v1/passkeys', USER, async (exchange) => {
    const context = requireContext(exchange);
    const credentials = await storeRead(() => kernel.store.listCredentialsForUser(context.principal.id));
    respondIdentityJson(exchange, 200, credentials.map(passkeyView));
  });

  router.patch('/identity/v1/passkeys/:credentialId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const credentialId = exchange.pathParam('credentialId')!;
    if (!isUuidV7(credentialId)) throw new IdentityError('request_invalid');
    const body = await readIdentityBody(kernel, exchange, RENAME_BODY);
    await mutate(exchange, context, await owned(exchange, context), { kind: 'rename', name: body.name });
  });

  router.delete('/identity/v1/passkeys/:credentialId', USER, async (exchange) => {
    const context = requireContext(exchange);
    const credential = await owned(exchange, context);
    requireStep(kernel, context);
    await mutate(exchange, context, credential, { kind: 'revoke' });
  });
  return router;
}
