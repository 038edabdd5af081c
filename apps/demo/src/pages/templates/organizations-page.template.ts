import type { PageTemplate } from './page-layout.template.js';

/** Shown by the organization pages when there is no usable session (they never sign in themselves). */
export const SIGNED_OUT_SECTION = `<section id="signed-out" aria-labelledby="signed-out-heading" hidden>
<h2 id="signed-out-heading">Sign in first</h2>
<p>This page needs a signed-in account. <a href="/identity">Sign in with a passkey</a>, then come back.</p>
</section>`;

/**
 * `/identity/organizations`: the caller's organizations (each linked by its ID), creating one
 * (step-up; the creator becomes its owner) and accepting an invitation with the signed-in account.
 * Rows are built by `client/organizations.page.mts`.
 */
export const ORGANIZATIONS_PAGE: PageTemplate = {
  title: 'Organizations',
  script: 'organizations.page.js',
  body: `${SIGNED_OUT_SECTION}

<section id="organizations" aria-labelledby="organizations-heading" hidden>
<h2 id="organizations-heading" tabindex="-1">Your organizations</h2>
<p id="organizations-empty" hidden>You are not a member of any organization yet.</p>
<div class="table-wrap"><table id="organizations-table">
<thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Your role</th><th scope="col">Organization ID</th></tr></thead>
<tbody id="organizations-body"></tbody>
</table></div>

<section class="panel" aria-labelledby="create-heading">
<h3 id="create-heading">Create an organization</h3>
<p class="hint">You become its owner. This needs a passkey check from the last five minutes; you are asked when needed.</p>
<form id="create-organization">
<div class="field">
<label for="organization-name">Organization name</label>
<input id="organization-name" name="name" required maxlength="200" autocomplete="organization">
</div>
<div class="field">
<label for="organization-slug">Organization slug</label>
<input id="organization-slug" name="slug" required pattern="[a-z0-9][a-z0-9\\-]{1,62}" autocomplete="off" spellcheck="false" aria-describedby="organization-slug-hint">
<p class="hint" id="organization-slug-hint">2–63 characters: lowercase letters, digits and hyphens, not starting with a hyphen. It cannot be changed later.</p>
</div>
<button type="submit">Create organization</button>
</form>
</section>

<section class="panel" aria-labelledby="accept-heading">
<h3 id="accept-heading">Accept an invitation</h3>
<p>Invited with the email address of this account? Paste the invitation link (or its token) to join with the account you are signed in with. New people open the link itself instead.</p>
<form id="accept-invitation" class="inline-form">
<label for="invitation-link">Invitation link</label>
<input id="invitation-link" name="link" required autocomplete="off" spellcheck="false" placeholder="https://…/identity/enroll#token=…">
<button type="submit">Accept invitation</button>
</form>
</section>
</section>`,
};
