import type { Router } from '@tessera/web';
import { IdentityError } from '../../errors/identity.errors.js';
import { mapStoreError } from '../../errors/store.errors.js';
import type { IdentityKernel } from '../../identity-kernel.js';
import { generateRecoveryCodes, parseRecoveryCode, recoveryCodeMatches } from '../../recovery/recovery-tokens.js';
import { respondIdentityJson } from '../identity-response.js';
import { decodeBody } from '../request-fields.js';
import {
  callerGate,
  rateLimited,
  readIdentityBody,
  readIdentityJson,
  requestTime,
  requireContext,
  storeRead,
} from '../route-kit.js';
import { requireStep } from './step-up.js';
import { mintSession, respondSessionCreated } from './session-grant.js';

const USER = callerGate({ user: true });
/** ANON route: anonymous or a full session; a restricted session is refused (identity-http §2 stage 7). */
const ANYONE = callerGate({ anonymous: true, user: true });
const USE_BODY = {
  code: { kind: 'text', min: 20, max: 128 },
  deviceLabel: { kind: 'text', min: 1, max: 200, optional: true },
  devicePlatform: { kind: 'text', min: 1, max: 200, optional: true },
} as const;

/**
 * Routes 16–17 (identity-http §4.1, identity-model §5.6): replace the recovery codes (step-up,
 * generation CAS; ten new codes shown once) and use one code for a 15-minute restricted session
 * (rate limited before any code is checked; a wrong secret consumes nothing; one winner).
 *
 * @example
 * recoveryRoutes(kernel, router);
 */
export function recoveryRoutes(kernel: IdentityKernel, router: Router): Router {
  router.post('/identity/v1/recovery/codes/replace', USER, async (exchange) => {
    const context = requireContext(exchange);
    const json = await readIdentityJson(kernel, exchange);
    const expectedGeneration = parseExpectedGeneration(json);
    requireStep(kernel, context);
    const at = requestTime(exchange);
    const userId = context.principal.id;
    const { codes, rows } = generateRecoveryCodes(kernel.runtime, kernel.keys.recoveryPepper);
    const result = await kernel.store.replaceRecoveryCodes({
      userId,
      expectedGeneration,
      codes: rows,
      at,
      audit: kernel.audit.event(exchange, at, {
        actor: { type: 'user', userId },
        action: 'recovery.codes_replaced',
        target: { type: 'user', id: userId },
      }),
    });
    if (!result.ok) throw new IdentityError(mapStoreError(result.code, 'identity'));
    respondIdentityJson(exchange, 200, { generation: result.value.generation, codes });
  });

  router.post(
    '/identity/v1/recovery/codes/use',
    ANYONE,
    rateLimited(kernel, 'recovery_code', 'peer'),
    async (exchange) => {
      const body = await readIdentityBody(kernel, exchange, USE_BODY);
      const at = requestTime(exchange);
      const parts = parseRecoveryCode(body.code);
      if (parts === undefined) throw new IdentityError('invalid_credentials');
      const code = await storeRead(() => kernel.store.findRecoveryCodeBySelector(parts.selector));
      // An unknown selector costs the same digest work as a known one.
      const stored = code?.secretDigest ?? UNKNOWN_CODE_DIGEST(kernel.keys.recoveryPepper.current.version);
      const matches = recoveryCodeMatches(kernel.keys.recoveryPepper, parts, stored);
      if (code === null || !matches) throw new IdentityError('invalid_credentials');
      if (code.state !== 'active') throw new IdentityError('invalid_credentials');
      const lifetime = kernel.config.lifetimes.restrictedSessionSeconds;
      const issued = mintSession(kernel, {
        userId: code.userId,
        assurance: 'recovery',
        authenticationMethod: 'recovery_code',
        authenticatedAt: at,
        lifetimes: { idleSeconds: lifetime, absoluteSeconds: lifetime },
        ...(body.deviceLabel === undefined ? {} : { label: body.deviceLabel }),
        ...(body.devicePlatform === undefined ? {} : { platform: body.devicePlatform }),
      });
      const result = await kernel.store.consumeRecoveryCode({
        codeId: code.id,
        expectedVersion: code.version,
        at,
        session: issued.session,
        audit: kernel.audit.event(exchange, at, {
          actor: { type: 'user', userId: code.userId },
          action: 'recovery.code_used',
          target: { type: 'user', id: code.userId },
        }),
      });
      if (!result.ok) {
        const unavailable = result.code === 'unavailable' || result.code === 'internal';
        throw new IdentityError(unavailable ? 'service_unavailable' : 'invalid_credentials');
      }
      respondSessionCreated(kernel, exchange, issued, result.value.session);
    },
  );
  return router;
}

/** A digest no code matches, checked when the selector is unknown. */
const UNKNOWN_CODE_DIGEST = (keyVersion: string) =>
  ({ algorithm: 'hmac-sha256', encoded: 'A'.repeat(43), keyVersion }) as const;

/** `{expectedGeneration?}`: an integer ≥ 0 when present (identity-http §4.2). */
function parseExpectedGeneration(json: unknown): number | null {
  const record = decodeBody(stripGeneration(json), {});
  if (record === undefined) throw new IdentityError('request_invalid');
  const value = (json as Record<string, unknown>).expectedGeneration;
  if (value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new IdentityError('request_invalid');
  return value;
}

function stripGeneration(json: unknown): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const { expectedGeneration: _ignored, ...rest } = json as Record<string, unknown>;
  return rest;
}
