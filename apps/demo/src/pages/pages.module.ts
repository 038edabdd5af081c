import { Module } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import { RouterModule } from '@tessera/web';
import { loadPageAssets } from './page-assets.js';
import { pagesRouter } from './pages.router.js';

/** Built assets: `dist/apps/demo/src/public/assets`, written by `scripts/build.mjs` (esbuild). */
const ASSETS_DIR = fileURLToPath(new URL('../public/assets', import.meta.url));

/**
 * The demo's identity pages, served by the app itself through the radix router: `/identity`
 * (passkey sign-in and account), `/identity/bootstrap`, `/identity/enroll`, `/identity/recovery`,
 * `/identity/organizations`, `/identity/organizations/{orgId}` (with its `/sso` and
 * `/provisioning` pages) and `/device` (approving a
 * `tessera login`), plus their scripts (with
 * `@simplewebauthn/browser`) and stylesheet.
 *
 * @example
 * @Module({ imports: [RouterModule.forRoot(), IdentityModule.forRoot(...), PagesModule] })
 */
@Module({
  imports: [
    RouterModule.forFeature({
      name: 'DemoPages',
      routers: [{ useFactory: () => pagesRouter(loadPageAssets(ASSETS_DIR)) }],
    }),
  ],
})
export class PagesModule {}
