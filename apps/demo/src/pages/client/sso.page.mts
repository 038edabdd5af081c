import { IdentityApi, IdentityApiError, isSignedOut } from './api.mjs';
import { signInOptionsPath, type FederationSignInOption } from './federation.api.mjs';
import { byId, show, showError } from './ui.mjs';

/** The organization ID of `/identity/organizations/{orgId}/sso`: the only place the page learns it. */
function organizationIdFromUrl(): string {
  return decodeURIComponent(location.pathname.split('/')[3] ?? '');
}

/** One “Sign in with …” link: a plain top-level navigation to the provider's start URL. */
function optionItem(option: FederationSignInOption): HTMLLIElement {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.className = 'button-link';
  link.href = option.startUrl;
  link.textContent = `Sign in with ${option.displayName}`;
  item.append(link);
  return item;
}

/** Says who is signed in already: a start while signed in links the provider (identity-http §6). */
async function showSignedIn(api: IdentityApi): Promise<void> {
  try {
    const me = await api.call<{ displayName: string }>('GET', api.route('me'));
    byId('sso-signed-in-name').textContent = me.displayName;
    show(byId('sso-signed-in'), true);
  } catch (error) {
    if (!isSignedOut(error)) throw error;
  }
}

/**
 * `/identity/organizations/{orgId}/sso`: the organization's enabled providers as “Sign in with …”
 * links; an unknown organization (404, or an ID that is not one: 400) and an organization without
 * enabled providers each get their own message.
 */
async function main(): Promise<void> {
  const api = await IdentityApi.load();
  let options: FederationSignInOption[];
  try {
    options = await api.call<FederationSignInOption[]>('GET', signInOptionsPath(organizationIdFromUrl()));
  } catch (error) {
    if (error instanceof IdentityApiError && (error.code === 'not_found' || error.code === 'request_invalid')) {
      show(byId('sso-unknown'), true);
      return;
    }
    throw error;
  }
  await showSignedIn(api);
  if (options.length === 0) {
    show(byId('sso-none'), true);
    return;
  }
  byId('sso-providers').replaceChildren(...options.map(optionItem));
  show(byId('sso-options'), true);
}

main().catch(showError);
