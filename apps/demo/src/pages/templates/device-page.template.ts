import type { PageTemplate } from './page-layout.template.js';

/** `&`, `<`, `>`, `"` and `'` as character references, for a value inside a quoted attribute. */
function attributeText(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * `/device` (the RFC 8628 `verification_uri`, no query string): the signed-in user types the code
 * their terminal shows, reads the confirmation screen (client, capabilities in plain words, when it
 * was requested, a warning against codes they did not start), chooses the organization explicitly,
 * may untick capabilities, and approves or denies. `rolesCapabilities` (role → device capabilities
 * that role holds) travels as a data attribute: the CSP allows no inline script, and the page says
 * up front what the chosen organization rules out. Steps are filled by `client/device.page.mts`.
 *
 * @example
 * const page = devicePage({ owner: ['identity.profile'], viewer: ['identity.profile'] });
 */
export function devicePage(rolesCapabilities: Readonly<Record<string, readonly string[]>>): PageTemplate {
  return {
    title: 'Approve a device sign-in',
    script: 'device.page.js',
    body: `<section id="signed-out" aria-labelledby="signed-out-heading" hidden>
<h2 id="signed-out-heading">Sign in first</h2>
<p>Approving a device needs a signed-in account. You are taken to sign in and brought back here; if nothing happens, <a id="sign-in-link" href="/identity">sign in with a passkey</a>.</p>
</section>

<section id="code-step" aria-labelledby="code-heading" hidden>
<h2 id="code-heading" tabindex="-1">Enter the code from your terminal</h2>
<p>Your terminal (for example after <code>tessera login</code>) shows a code such as <code>WDJB-MJHT</code>.</p>
<p id="tab-notice" class="notice" hidden>You are signed in, but this browser tab has no sign-in token and no other open tab of this site could share one (each tab keeps its own). Enter the code in a tab where you are signed in, or quit the browser, which ends the session, and sign in again.</p>
<form id="code-form" class="inline-form">
<label for="user-code">Code</label>
<input id="user-code" name="userCode" required maxlength="64" autocomplete="off" spellcheck="false" autocapitalize="characters" aria-describedby="user-code-hint">
<button type="submit">Continue</button>
<p class="hint" id="user-code-hint">Eight letters and digits; upper or lower case, the dash is optional.</p>
</form>
</section>

<section id="confirm-step" aria-labelledby="confirm-heading" hidden>
<h2 id="confirm-heading" tabindex="-1">Confirm the device sign-in</h2>
<p class="warning" id="phishing-warning"><strong>Approve only a code you started yourself, in your own terminal, just now.</strong> If someone sent you this code, asked you to enter it, or you do not recognise the request, deny it: approving lets that device act as you.</p>
<dl class="facts">
<dt>Application</dt><dd id="grant-client"></dd>
<dt>Code</dt><dd><code id="grant-code"></code></dd>
<dt>Requested</dt><dd id="grant-requested"></dd>
<dt>Code expires</dt><dd id="grant-expires"></dd>
</dl>
<form id="decision-form" novalidate data-role-capabilities="${attributeText(JSON.stringify(rolesCapabilities))}">
<div class="field">
<label for="organization">Organization</label>
<select id="organization" name="organizationId" required aria-describedby="organization-hint">
<option value="">Choose an organization…</option>
</select>
<p class="hint" id="organization-hint">The device acts only in this organization, and never with more than your role there allows.</p>
</div>
<fieldset id="capabilities" class="choices" aria-describedby="capabilities-hint">
<legend>What the device may do</legend>
<p class="hint" id="capabilities-hint">Untick anything it does not need.</p>
<ul id="capability-list"></ul>
</fieldset>
<p id="capability-note" class="notice" aria-live="polite"></p>
<p class="actions">
<button type="submit" id="approve">Approve</button>
<button type="button" id="deny" class="secondary">Deny</button>
</p>
</form>
</section>

<section id="result-step" aria-labelledby="result-heading" hidden>
<h2 id="result-heading" tabindex="-1"></h2>
<p id="result-text"></p>
<p><strong>You can return to your terminal.</strong> <a href="/device">Enter another code</a></p>
</section>`,
  };
}
