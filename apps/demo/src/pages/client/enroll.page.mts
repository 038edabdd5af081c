import { IdentityApi, IdentityApiError } from './api.mjs';
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

/** What the preview (`POST /identity/v1/invitations/preview`) tells before enrolling. */
interface InvitationPreview {
  readonly organizationName: string;
  readonly role: string;
  readonly inviterDisplayName: string | null;
  readonly expiresAt: string;
}

/**
 * Names who invites whom where ("Ada invited you to Acme as publisher"); an unusable link says so
 * at once and hides the form, instead of failing only after the person typed their name.
 */
async function describeInvitation(api: IdentityApi, invitationToken: string): Promise<void> {
  const state = byId('invitation-state');
  try {
    const preview = await api.call<InvitationPreview>('POST', api.identityPath('invitations/preview'), {
      token: invitationToken,
    });
    const inviter = preview.inviterDisplayName ?? 'An administrator';
    const until = new Date(preview.expiresAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    state.replaceChildren(
      `${inviter} invited you to `,
      strong(preview.organizationName),
      ' as ',
      strong(preview.role),
      `. The invitation works once, until ${until}. Choose the name others will see, then create a passkey.`,
    );
  } catch (error) {
    if (!(error instanceof IdentityApiError) || error.status !== 401) throw error;
    state.textContent =
      'This invitation link cannot be used: it is incomplete, was already used, was revoked or has expired. Ask the person who invited you for a new one.';
    show(byId('enroll-form'), false);
    throw error;
  }
}

function strong(text: string): HTMLElement {
  const element = document.createElement('strong');
  element.textContent = text;
  return element;
}

async function main(): Promise<void> {
  if (token === undefined) {
    byId('invitation-state').textContent =
      'This page needs the complete invitation link, ending in #token=…. Open the link from your invitation again, or ask for a new one.';
    show(byId('enroll-form'), false);
    return;
  }
  const api = await IdentityApi.load();
  await describeInvitation(api, token);
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
