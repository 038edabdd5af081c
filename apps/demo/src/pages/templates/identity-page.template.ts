import { recoveryCodesBlock, type PageTemplate } from './page-layout.template.js';

/**
 * `/identity`: username-free passkey sign-in, then the account (profile, step-up, a link to the
 * organizations, passkeys, sessions, recovery codes, sign-out). Rows are built by `client/account.view.ts`.
 * It is also where a federated sign-in lands (`federation.successPath`): `#first-passkey` then
 * offers the first passkey while the server allows it without a passkey check (FED1).
 */
export const IDENTITY_PAGE: PageTemplate = {
  title: 'Your account',
  script: 'identity.page.js',
  body: `<section id="signed-out" aria-labelledby="sign-in-heading" hidden>
<h2 id="sign-in-heading">Sign in</h2>
<p id="return-notice" class="notice" hidden>Sign in to continue to the device confirmation: you are brought back to it afterwards.</p>
<p>Sign in with a passkey saved on this device, a security key or your phone. There is no username or password to type.</p>
<p><button type="button" id="sign-in">Sign in with a passkey</button></p>
<p class="hint">Lost every passkey? <a href="/identity/recovery">Use a recovery code</a>.</p>
</section>

<section id="account" aria-labelledby="account-heading" hidden>
<h2 id="account-heading" tabindex="-1">Account</h2>
<dl class="facts">
<dt>Name</dt><dd id="me-name"></dd>
<dt>User ID</dt><dd><code id="me-user-id"></code></dd>
<dt>Session assurance</dt><dd id="me-assurance"></dd>
</dl>
<section id="first-passkey" class="notice" aria-labelledby="first-passkey-heading" hidden>
<h3 id="first-passkey-heading" tabindex="-1">Add your first passkey now</h3>
<p id="first-passkey-text"></p>
</section>
<p class="actions">
<button type="button" id="step-up">Confirm it’s you with a passkey</button>
<button type="button" id="logout" class="secondary">Sign out</button>
</p>
<p class="hint">Revoking a passkey, adding one and replacing recovery codes need a passkey check from the last five minutes; you are asked when needed.</p>

<section class="panel" aria-labelledby="organizations-heading">
<h3 id="organizations-heading">Organizations</h3>
<p>See the organizations you belong to, create one, manage members, invitations, single sign-on, service identities and the audit log: <a href="/identity/organizations">Your organizations</a>.</p>
</section>

<section class="panel" aria-labelledby="passkeys-heading">
<h3 id="passkeys-heading">Passkeys</h3>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody id="passkeys-body"></tbody>
</table></div>
<form id="add-passkey" class="inline-form">
<label for="new-passkey-name">Name for a new passkey</label>
<input id="new-passkey-name" name="credentialName" required maxlength="200" autocomplete="off" placeholder="e.g. Work laptop">
<button type="submit">Add a passkey</button>
</form>
</section>

<section class="panel" aria-labelledby="sessions-heading">
<h3 id="sessions-heading">Sessions</h3>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Device</th><th scope="col">Method</th><th scope="col">Assurance</th><th scope="col">State</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody id="sessions-body"></tbody>
</table></div>
<p class="actions">
<button type="button" id="revoke-others" class="secondary">Sign out all other sessions</button>
<button type="button" id="revoke-all" class="danger">Sign out everywhere</button>
</p>
</section>

<section class="panel" aria-labelledby="recovery-heading">
<h3 id="recovery-heading">Recovery codes</h3>
<p>Ten single-use codes get you back in if you lose every passkey. Replacing them makes all earlier codes stop working.</p>
<p><button type="button" id="replace-codes">Replace recovery codes</button></p>
${recoveryCodesBlock(3, '')}
</section>
</section>`,
};
