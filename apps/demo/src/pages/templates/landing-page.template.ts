import type { PageAssets } from '../page-assets.js';

/** One link of the landing page: where it goes, its label and what the reader finds there. */
export interface LandingLink {
  readonly href: string;
  readonly label: string;
  readonly description: string;
}

/**
 * The landing page's sections: the identity pages, the demo's APIs and the API reference (served at
 * `/identity/docs`).
 */
export const LANDING_SECTIONS: readonly { readonly heading: string; readonly links: readonly LandingLink[] }[] = [
  {
    heading: 'Identity pages',
    links: [
      {
        href: '/identity/bootstrap',
        label: 'Set up the first owner',
        description:
          'First step on a new server: create the owner, the organization and a passkey with the bootstrap secret (works once).',
      },
      {
        href: '/identity',
        label: 'Sign in and account',
        description: 'Passkey sign-in, your sessions, passkeys and recovery codes.',
      },
      {
        href: '/identity/organizations',
        label: 'Organizations',
        description: 'Members, invitations, single sign-on (OIDC and SAML), service identities and the audit log.',
      },
      {
        href: '/device',
        label: 'Approve a device sign-in',
        description:
          'Where tessera login sends you: type the code from your terminal, then approve it for one organization or deny it.',
      },
      {
        href: '/identity/recovery',
        label: 'Account recovery',
        description: 'Sign in with a recovery code after losing every passkey.',
      },
      { href: '/identity/enroll', label: 'Accept an invitation', description: 'Opened from an invitation link.' },
    ],
  },
  {
    heading: 'Demo APIs',
    links: [
      {
        href: '/account',
        label: '/account',
        description: 'A host controller guarded by @RequireIdentity() (401 until you sign in).',
      },
      {
        href: '/todos',
        label: '/todos',
        description: 'A ViewSet persisted with MikroORM (/todo-feed is its read-only twin).',
      },
      { href: '/hello/world', label: '/hello/:name', description: 'A radix-tree route.' },
      { href: '/health', label: '/health', description: 'Health with a database round trip.' },
    ],
  },
  {
    heading: 'Reference',
    links: [
      {
        href: '/identity/docs',
        label: 'API docs',
        description: 'The identity API (OpenAPI), rendered in the browser.',
      },
      {
        href: '/identity/v1/client-config',
        label: 'Client configuration',
        description: 'What the browser pages read first.',
      },
    ],
  },
];

/**
 * `GET /`: a static page linking the demo's pages, APIs and the API docs; no script (the CSP of
 * the pages allows none inline), the built stylesheet when there is one.
 *
 * @example
 * const html = renderLandingPage(loadPageAssets(dir));
 */
export function renderLandingPage(assets: PageAssets): string {
  const css = assets.url('identity.css');
  const sections = LANDING_SECTIONS.map(
    (section) => `<section>
<h2>${section.heading}</h2>
<ul>
${section.links.map((link) => `<li><a href="${link.href}">${link.label}</a> — ${link.description}</li>`).join('\n')}
</ul>
</section>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Tessera demo</title>
<link rel="icon" href="/assets/identity/icon.svg" type="image/svg+xml">
${css === undefined ? '' : `<link rel="stylesheet" href="${css}">\n`}</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="/">Tessera</a>
<nav aria-label="Identity pages"><a href="/identity">Account</a><a href="/identity/organizations">Organizations</a><a href="/identity/docs">API docs</a></nav>
</header>
<main id="main" tabindex="-1">
<h1>Tessera demo</h1>
<p>A NestJS app on the Tessera modules: a radix-tree router, ViewSet resources and a passkey-first identity platform. On a new server, start with <a href="/identity/bootstrap">the first owner</a>; afterwards, <a href="/identity">sign in</a>.</p>
${sections}
</main>
</body>
</html>
`;
}
