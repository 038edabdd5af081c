import type { PageAssets } from '../page-assets.js';

/** One demo page: its `<title>`/`<h1>`, its script entry and the markup inside `<main>`. */
export interface PageTemplate {
  readonly title: string;
  /** Entry name in the asset manifest, e.g. `identity.page.js`. */
  readonly script: string;
  readonly body: string;
  /** A wider `<main>` for pages with wide tables (the organization page). @default false */
  readonly wide?: boolean;
}

/**
 * The shared HTML shell: stylesheet and one deferred ES module from the hashed assets, no inline
 * script or style (the CSP forbids both), a live status region and an alert region the scripts
 * fill. Returns `undefined` when the assets were not built.
 *
 * @example
 * const html = renderPage({ title: 'Sign in', script: 'identity.page.js', body: '<p>…</p>' }, assets);
 */
export function renderPage(page: PageTemplate, assets: PageAssets): string | undefined {
  const css = assets.url('identity.css');
  const script = assets.url(page.script);
  if (css === undefined || script === undefined) return undefined;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title} — Tessera</title>
<link rel="icon" href="/assets/identity/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${css}">
<script type="module" src="${script}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="/identity">Tessera</a>
<nav aria-label="Identity pages"><a href="/identity">Account</a><a href="/identity/organizations">Organizations</a><a href="/identity/recovery">Recovery</a></nav>
</header>
<main id="main" tabindex="-1"${page.wide === true ? ' class="wide"' : ''}>
<h1>${page.title}</h1>
<p id="status" class="status" role="status" aria-live="polite"></p>
<div id="error" class="error" role="alert"></div>
${page.body}
</main>
</body>
</html>
`;
}

/** A 16×16 mark so browsers do not request `/favicon.ico`. */
export const PAGE_ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/><path d="M4 4h8v2H9v6H7V6H4z" fill="#fff"/></svg>';

/**
 * The recovery-codes block shared by every page that may receive `replacementRecoveryCodes` or a
 * replaced set: hidden until a script fills the list; shown exactly once per response.
 */
export function recoveryCodesBlock(headingLevel: 2 | 3, after: string): string {
  const h = `h${headingLevel}`;
  return `<section id="codes-step" class="codes-step" aria-labelledby="codes-heading" hidden>
<${h} id="codes-heading">Save your recovery codes</${h}>
<p class="warning"><strong>These ten codes are shown only this once.</strong> Store them somewhere safe, such as a password manager or a printed copy. Each code works one time and lets you back in if you lose every passkey.</p>
<ol id="codes-list" class="codes"></ol>
<p class="actions"><button type="button" id="copy-codes" class="secondary">Copy the codes</button> <button type="button" id="download-codes" class="secondary">Download as .txt</button> <button type="button" id="print-codes" class="secondary">Print</button></p>
<p class="hint">Each code is 26 letters and digits in five groups. When you use one, case, dashes and spaces do not matter, and O, I and L are read as 0, 1 and 1.</p>
${after}
</section>`;
}
