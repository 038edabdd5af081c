import type { IdentityApi } from './api.mjs';
import { registerPasskey } from './ceremonies.mjs';
import { announce, byId, formText, runAction, show, showRecoveryCodes } from './ui.mjs';

/**
 * The shared second half of bootstrap, invitation enrolment and recovery: the form opens a
 * restricted session (its CSRF token is stored), then the passkey is registered and the ten
 * replacement recovery codes are shown once. Registration finish ends the restricted session, so
 * the token is forgotten and the person signs in with the new passkey. A failed passkey step
 * (cancelled prompt, timeout) can be retried while the 15-minute session lasts.
 *
 * @example
 * wireOnboarding(api, byId('recovery-form'), async (values) => (await useCode(values)).csrfToken, 'Code accepted.');
 */
export function wireOnboarding(
  api: IdentityApi,
  form: HTMLFormElement,
  openSession: (values: Record<string, string>) => Promise<string>,
  openedMessage: string,
): void {
  let credentialName = '';

  const register = async (): Promise<void> => {
    announce('Waiting for your new passkey…');
    let codes: readonly string[] | undefined;
    try {
      codes = (await registerPasskey(api, credentialName)).replacementRecoveryCodes;
    } catch (error) {
      show(byId('passkey-step'), true);
      throw error;
    }
    api.forgetCsrfToken();
    show(byId('passkey-step'), false);
    if (codes === undefined) {
      announce('Passkey saved.');
      return;
    }
    showRecoveryCodes(codes);
    announce('Passkey saved. Save your recovery codes, then sign in with the passkey.');
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void runAction(form, async () => {
      const values = formText(form);
      credentialName = values['credentialName'] ?? '';
      api.keepCsrfToken(await openSession(values));
      form.reset();
      show(byId('form-step'), false);
      announce(openedMessage);
      await register();
    });
  });

  const retry = byId<HTMLButtonElement>('create-passkey');
  retry.addEventListener('click', () => void runAction(retry, register));
}
