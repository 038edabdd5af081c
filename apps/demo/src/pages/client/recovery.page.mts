import { IdentityApi, type SessionCreated } from './api.mjs';
import { deviceDescription } from './ceremonies.mjs';
import { wireOnboarding } from './onboarding.mjs';
import { byId, showError } from './ui.mjs';

async function main(): Promise<void> {
  const api = await IdentityApi.load();
  wireOnboarding(
    api,
    byId<HTMLFormElement>('recovery-form'),
    async ({ code }) => {
      const session = await api.call<SessionCreated>('POST', api.route('recoveryCodesUse'), {
        code: (code ?? '').trim(),
        ...deviceDescription(),
      });
      return session.csrfToken;
    },
    'Recovery code accepted. Now create a new passkey.',
  );
}

main().catch(showError);
