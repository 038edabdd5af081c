import type { PageTemplate } from './page-layout.template.js';

/**
 * `/identity/organizations/{orgId}/sso`: an organization's own sign-in page, for anyone. Its
 * script lists the organization's enabled single sign-on providers (the public route
 * `GET /identity/v1/federation/{orgId}/providers`) as “Sign in with …” links to their start
 * URLs, top-level navigations to the identity provider; it says so when there are none or the
 * organization is unknown. The organization is the ID in the URL.
 */
export const SSO_PAGE: PageTemplate = {
  title: 'Single sign-on',
  script: 'sso.page.js',
  body: `<p id="sso-signed-in" class="notice" hidden>You are already signed in as <strong id="sso-signed-in-name"></strong> (<a href="/identity">your account</a>). Signing in with a provider while signed in with a passkey links that provider to your account, and needs a passkey check from the last five minutes.</p>

<section id="sso-options" aria-labelledby="sso-options-heading" hidden>
<h2 id="sso-options-heading" tabindex="-1">Sign in through your organization</h2>
<p>Choose your organization’s identity provider: you sign in there and come back here signed in.</p>
<ul id="sso-providers" class="sign-in-options"></ul>
<p class="hint">Your first sign-in through a provider may create your account; add a passkey right after it (your account page offers that for five minutes).</p>
</section>

<p id="sso-none" class="notice" hidden>This organization offers no single sign-on right now. Ask its owners, or <a href="/identity">sign in with a passkey</a> if you have one.</p>
<p id="sso-unknown" class="notice" hidden>There is no organization at this address, or it was deleted. Check the link you were given.</p>

<p class="hint">Have a passkey for this site? <a href="/identity">Sign in with a passkey</a>.</p>`,
};
