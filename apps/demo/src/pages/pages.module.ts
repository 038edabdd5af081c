import { Module, type DynamicModule } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import { RouterModule } from '@tessera/web';
import { loadPageAssets, type PageAssets } from './page-assets.js';
import { pagesRouter } from './pages.router.js';
import { outboxRouter } from './outbox.router.js';
import type { DevelopmentOutbox } from '../identity/development-outbox.js';

/** Built assets: `dist/apps/demo/src/public/assets`, written by `scripts/build.mjs` (esbuild). */
const ASSETS_DIR = fileURLToPath(new URL('../public/assets', import.meta.url));

/**
 * The demo's identity pages, served by the app itself through the radix router: `/identity`
 * (passkey sign-in and account), `/identity/bootstrap`, `/identity/enroll`, `/identity/recovery`,
 * `/identity/organizations`, `/identity/organizations/{orgId}` (with its `/sso` and
 * `/provisioning` pages) and `/device` (approving a
 * `tessera login`), plus their scripts (with
 * `@simplewebauthn/browser`) and stylesheet; in development the outbox page `/identity/dev/outbox`.
 *
 * @example
 * @Module({ imports: [RouterModule.forRoot(), IdentityModule.forRoot(...), PagesModule.forRoot({ outbox })] })
 */
@Module({})
export class PagesModule {
  /** The pages; with `outbox` (development), also `GET /identity/dev/outbox`. */
  static forRoot(options: { outbox?: DevelopmentOutbox } = {}): DynamicModule {
    const { outbox } = options;
    let loaded: PageAssets | undefined;
    const assets = () => (loaded ??= loadPageAssets(ASSETS_DIR));
    return {
      module: PagesModule,
      imports: [
        RouterModule.forFeature({
          name: 'DemoPages',
          routers: [
            { useFactory: () => pagesRouter(assets()) },
            ...(outbox === undefined ? [] : [{ useFactory: () => outboxRouter(outbox, assets()) }]),
          ],
        }),
      ],
    };
  }
}
