import { IdentityApi } from './api.mjs';
import { wireOnboarding } from './onboarding.mjs';
import { byId, show, showError } from './ui.mjs';

/** `BootstrapCreated` (identity-http §4.5), the parts the page uses. */
interface BootstrapCreated {
  readonly userId: string;
  readonly organization: { readonly id: string; readonly name: string };
  readonly csrfToken: string;
}

async function main(): Promise<void> {
  const api = await IdentityApi.load();
  if (api.config.features['bootstrap'] !== true) show(byId('bootstrap-unavailable'), true);
  wireOnboarding(
    api,
    byId<HTMLFormElement>('bootstrap-form'),
    async ({ secret, displayName, primaryEmail, organizationName, organizationSlug }) => {
      const created = await api.call<BootstrapCreated>('POST', api.route('bootstrap'), {
        secret,
        displayName,
        primaryEmail,
        organizationName,
        organizationSlug,
      });
      return created.csrfToken;
    },
    'Owner and organization created. Now create your passkey.',
  );
}

main().catch(showError);
