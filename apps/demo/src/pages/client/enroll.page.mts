import { IdentityApi } from './api.mjs';
import { wireOnboarding } from './onboarding.mjs';
import { byId, show, showError } from './ui.mjs';

/**
 * The invitation token travels only in the URL fragment (`#token=…`), which browsers never send;
 * it is taken into memory and removed from the address bar and history before anything else runs.
 * A token in the query string is never used.
 */
function takeInvitationToken(): string | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  if (location.hash !== '' || location.search !== '') history.replaceState(null, '', location.pathname);
  return token === '' ? undefined : token;
}

let token = takeInvitationToken();

async function main(): Promise<void> {
  if (token === undefined) {
    byId('invitation-state').textContent =
      'This page needs the complete invitation link, ending in #token=…. Open the link from your invitation again, or ask for a new one.';
    show(byId('enroll-form'), false);
    return;
  }
  const api = await IdentityApi.load();
  wireOnboarding(
    api,
    byId<HTMLFormElement>('enroll-form'),
    async ({ displayName }) => {
      const created = await api.call<{ csrfToken: string }>('POST', api.route('invitationEnroll'), {
        token,
        displayName,
      });
      token = undefined;
      return created.csrfToken;
    },
    'Invitation accepted. Now create your passkey.',
  );
}

main().catch(showError);
