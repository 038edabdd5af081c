import {
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { IdentityApiError, type IdentityApi, type SessionCreated } from './api.mjs';

/** `PasskeyView` (identity-http §4.5). */
export interface PasskeyView {
  readonly id: string;
  readonly name: string;
  readonly transports: readonly string[];
  readonly backupEligible: boolean;
  readonly backedUp: boolean;
  readonly state: string;
  readonly createdAt: string;
  readonly lastUsedAt?: string;
}

/** Route 3's answer: `replacementRecoveryCodes` only when a restricted session enrolled. */
export interface RegistrationFinished {
  readonly passkey: PasskeyView;
  readonly replacementRecoveryCodes?: readonly string[];
}

interface CeremonyStart<T> {
  readonly ceremonyId: string;
  readonly publicKey: T;
}

/**
 * Registers a passkey in the current session (routes 2–3). The browser's response is reduced to
 * the contract's `RegistrationCredential` (§4.6): simplewebauthn adds `publicKey`,
 * `publicKeyAlgorithm` and `authenticatorData`, which the strict decoder would reject.
 */
export async function registerPasskey(api: IdentityApi, credentialName: string): Promise<RegistrationFinished> {
  const start = await api.call<CeremonyStart<PublicKeyCredentialCreationOptionsJSON>>(
    'POST',
    api.route('registrationStart'),
  );
  const credential = await startRegistration({ optionsJSON: start.publicKey });
  return api.call<RegistrationFinished>('POST', api.route('registrationFinish'), {
    ceremonyId: start.ceremonyId,
    credentialName,
    credential: registrationCredential(credential),
  });
}

/**
 * Username-free sign-in (routes 4–5) or step-up (routes 6–7): either way a new session whose CSRF
 * token replaces the stored one (step-up rotates the session).
 */
export async function authenticate(api: IdentityApi, kind: 'sign_in' | 'step_up'): Promise<SessionCreated> {
  const [startRoute, finishRoute] =
    kind === 'sign_in'
      ? (['authenticationStart', 'authenticationFinish'] as const)
      : (['stepUpStart', 'stepUpFinish'] as const);
  const start = await api.call<CeremonyStart<PublicKeyCredentialRequestOptionsJSON>>('POST', api.route(startRoute));
  const credential = await startAuthentication({ optionsJSON: start.publicKey });
  const session = await api.call<SessionCreated>('POST', api.route(finishRoute), {
    ceremonyId: start.ceremonyId,
    credential: authenticationCredential(credential),
    ...deviceDescription(),
  });
  api.keepCsrfToken(session.csrfToken);
  return session;
}

/** Runs `action`; on 403 `step_up_required` confirms with a passkey (step-up) and runs it once more. */
export async function withStepUp<T>(api: IdentityApi, action: () => Promise<T>, onStepUp: () => void): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof IdentityApiError) || error.code !== 'step_up_required') throw error;
    onStepUp();
    await authenticate(api, 'step_up');
    return action();
  }
}

function registrationCredential(credential: RegistrationResponseJSON): Record<string, unknown> {
  const { id, rawId, type, response, authenticatorAttachment, clientExtensionResults } = credential;
  return {
    id,
    rawId,
    type,
    response: {
      clientDataJSON: response.clientDataJSON,
      attestationObject: response.attestationObject,
      transports: response.transports ?? [],
    },
    ...(authenticatorAttachment === undefined ? {} : { authenticatorAttachment }),
    clientExtensionResults,
  };
}

function authenticationCredential(credential: AuthenticationResponseJSON): Record<string, unknown> {
  const { id, rawId, type, response, authenticatorAttachment, clientExtensionResults } = credential;
  return {
    id,
    rawId,
    type,
    response: {
      clientDataJSON: response.clientDataJSON,
      authenticatorData: response.authenticatorData,
      signature: response.signature,
      ...(response.userHandle === undefined ? {} : { userHandle: response.userHandle }),
    },
    ...(authenticatorAttachment === undefined ? {} : { authenticatorAttachment }),
    clientExtensionResults,
  };
}

/** Optional `deviceLabel`/`devicePlatform` for the sessions list, from User-Agent Client Hints when present. */
export function deviceDescription(): { deviceLabel?: string; devicePlatform?: string } {
  const hints = (navigator as Navigator & { userAgentData?: { brands?: { brand: string }[]; platform?: string } })
    .userAgentData;
  const brand = hints?.brands?.map((entry) => entry.brand).find((name) => !/not.?a.?brand|chromium/i.test(name));
  const platform = hints?.platform?.slice(0, 200);
  return {
    deviceLabel: `${brand ?? 'Web browser'} (demo pages)`.slice(0, 200),
    ...(platform ? { devicePlatform: platform } : {}),
  };
}
