import { recoveryCodesBlock, type PageTemplate } from './page-layout.template.js';

/** Shown after a restricted session exists but its passkey could not be created yet (retry). */
const PASSKEY_STEP = `<section id="passkey-step" aria-labelledby="passkey-step-heading" hidden>
<h2 id="passkey-step-heading">Create your passkey</h2>
<p>Your account is ready but has no passkey yet. This setup session lasts 15 minutes.</p>
<p><button type="button" id="create-passkey">Create the passkey</button></p>
</section>`;

const CODES_STEP = recoveryCodesBlock(
  2,
  '<p>Your passkey is saved and this setup session has ended. <a id="continue-link" href="/identity">Continue to sign in with your passkey</a></p>',
);

const PASSKEY_NAME_FIELD = `<div class="field">
<label for="credential-name">Passkey name</label>
<input id="credential-name" name="credentialName" required maxlength="200" autocomplete="off" value="Passkey on this device">
<p class="hint" id="credential-name-hint">Helps you tell your passkeys apart later.</p>
</div>`;

/** `/identity/bootstrap`: the first owner, the first organization and the owner's passkey. */
export const BOOTSTRAP_PAGE: PageTemplate = {
  title: 'Set up the first owner',
  script: 'bootstrap.page.js',
  body: `<section id="form-step" aria-labelledby="form-heading">
<h2 id="form-heading">Create the first owner</h2>
<p id="bootstrap-unavailable" class="notice" hidden>Bootstrap is not available on this server: it was already completed, or no bootstrap secret is configured. <a href="/identity">Sign in</a> instead.</p>
<p>This works once, while the server still has a bootstrap secret configured. You create the owner account and its organization, then a passkey for signing in.</p>
<form id="bootstrap-form">
<div class="field">
<label for="secret">Bootstrap secret</label>
<input id="secret" name="secret" type="password" required minlength="16" maxlength="512" autocomplete="off" aria-describedby="secret-hint">
<p class="hint" id="secret-hint">The value of <code>TESSERA_BOOTSTRAP_SECRET</code> on the server.</p>
</div>
<div class="field">
<label for="display-name">Your name</label>
<input id="display-name" name="displayName" required maxlength="200" autocomplete="name">
</div>
<div class="field">
<label for="primary-email">Email</label>
<input id="primary-email" name="primaryEmail" type="email" required minlength="3" maxlength="320" autocomplete="email">
</div>
<div class="field">
<label for="organization-name">Organization name</label>
<input id="organization-name" name="organizationName" required maxlength="200" autocomplete="organization">
</div>
<div class="field">
<label for="organization-slug">Organization slug</label>
<input id="organization-slug" name="organizationSlug" required pattern="[a-z0-9][a-z0-9\\-]{1,62}" autocomplete="off" spellcheck="false" aria-describedby="slug-hint">
<p class="hint" id="slug-hint">2–63 characters: lowercase letters, digits and hyphens, not starting with a hyphen.</p>
</div>
${PASSKEY_NAME_FIELD}
<button type="submit">Create owner and passkey</button>
</form>
</section>
${PASSKEY_STEP}
${CODES_STEP}`,
};

/** `/identity/enroll#token=…`: accept an invitation as a new user (the token never leaves the fragment). */
export const ENROLL_PAGE: PageTemplate = {
  title: 'Join with an invitation',
  script: 'enroll.page.js',
  body: `<section id="form-step" aria-labelledby="form-heading">
<h2 id="form-heading">Create your account</h2>
<p id="invitation-state">You were invited to an organization. Choose the name others will see, then create a passkey.</p>
<form id="enroll-form">
<div class="field">
<label for="display-name">Your name</label>
<input id="display-name" name="displayName" required maxlength="200" autocomplete="name">
</div>
${PASSKEY_NAME_FIELD}
<button type="submit">Join and create a passkey</button>
</form>
</section>
${PASSKEY_STEP}
${CODES_STEP}`,
};

/** `/identity/recovery`: a recovery code opens a 15-minute restricted session to enrol a new passkey. */
export const RECOVERY_PAGE: PageTemplate = {
  title: 'Recover your account',
  script: 'recovery.page.js',
  body: `<section id="form-step" aria-labelledby="form-heading">
<h2 id="form-heading">Use a recovery code</h2>
<p>Enter one of your ten recovery codes. It works once; afterwards you create a new passkey and receive a fresh set of codes, and every earlier code and session stops working.</p>
<form id="recovery-form">
<div class="field">
<label for="code">Recovery code</label>
<input id="code" name="code" required minlength="20" maxlength="128" autocomplete="off" spellcheck="false" autocapitalize="characters" placeholder="XXXXX-XXXXX-XXXXX-XXXXX-XXXXXX" aria-describedby="code-hint">
<p class="hint" id="code-hint">26 letters and digits, as printed. Case, dashes and spaces do not matter.</p>
</div>
${PASSKEY_NAME_FIELD}
<button type="submit">Recover and create a passkey</button>
</form>
</section>
${PASSKEY_STEP}
${CODES_STEP}`,
};
