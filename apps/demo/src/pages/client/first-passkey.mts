import { IdentityApiError } from './api.mjs';
import type { SessionView } from './account.view.mjs';
import type { PasskeyView } from './ceremonies.mjs';
import { byId, show } from './ui.mjs';

/** FED1 (identity-http §4.3): a federated session may add the user's first passkey this long after signing in. */
export const FIRST_PASSKEY_WINDOW_MS = 5 * 60_000;
/** Credential states that count as "already has a passkey" for FED1. */
const COUNTED_STATES = new Set(['active', 'suspended', 'suspected_clone']);
const FEDERATED_METHODS = new Set(['oidc', 'saml']);

/** The first-passkey offer of a federated session whose user has no passkey yet. */
export interface FirstPasskeyOffer {
  /** Five minutes after the federated sign-in. */
  readonly until: Date;
  /** Whether the server still allows the first passkey without a passkey check. */
  readonly open: boolean;
}

/**
 * The offer for this browser's session: `undefined` unless the current session came from single
 * sign-on (`oidc`/`saml`) and the user holds no passkey in a counted state.
 *
 * @example
 * const offer = firstPasskeyOffer(sessions, passkeys);
 */
export function firstPasskeyOffer(
  sessions: readonly SessionView[],
  passkeys: readonly PasskeyView[],
  now = Date.now(),
): FirstPasskeyOffer | undefined {
  const current = sessions.find((session) => session.current);
  if (current === undefined || !FEDERATED_METHODS.has(current.authenticationMethod)) return undefined;
  if (passkeys.some((passkey) => COUNTED_STATES.has(passkey.state))) return undefined;
  const until = new Date(Date.parse(current.authenticatedAt) + FIRST_PASSKEY_WINDOW_MS);
  return { until, open: now < until.getTime() };
}

const AGAIN = 'Sign in again through your organization’s single sign-on page, then add your first passkey right away.';

/** Shows (or hides, for `undefined`) the `#first-passkey` notice of the account page. */
export function renderFirstPasskeyOffer(offer: FirstPasskeyOffer | undefined): void {
  const notice = byId('first-passkey');
  show(notice, offer !== undefined);
  if (offer === undefined) return;
  const until = offer.until.toLocaleTimeString(undefined, { timeStyle: 'short' });
  byId('first-passkey-heading').textContent = offer.open
    ? 'Add your first passkey now'
    : 'The time to add a first passkey has passed';
  byId('first-passkey-text').textContent = offer.open
    ? `You signed in through your organization’s single sign-on and have no passkey yet. Until ${until} (five minutes after signing in) you can add your first passkey below without a passkey check. After that, adding passkeys, replacing recovery codes and other sensitive changes need a passkey you already have.`
    : `This single sign-on session can no longer add a first passkey: that is allowed only in the first five minutes (until ${until}). ${AGAIN}`;
}

/**
 * Runs the first-passkey registration: a 403 `step_up_required` here means the five minutes have
 * passed (a step-up is impossible without a passkey), which the error then says.
 */
export async function asFirstPasskey<T>(register: () => Promise<T>): Promise<T> {
  try {
    return await register();
  } catch (error) {
    if (!(error instanceof IdentityApiError) || error.code !== 'step_up_required') throw error;
    throw new IdentityApiError(
      error.status,
      error.code,
      `${error.message}: the five minutes after your single sign-on have passed. ${AGAIN}`,
      error.requestId,
    );
  }
}
