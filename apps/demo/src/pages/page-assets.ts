import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** One built browser asset, held in memory. */
export interface PageAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

/** The esbuild output of `scripts/build.mjs` for the demo pages. */
export interface PageAssets {
  /** Hashed file name → content; empty when the pages were not built. */
  readonly files: ReadonlyMap<string, PageAsset>;
  /** URL of an entry's hashed file (`identity.page.js`, `identity.css`); `undefined` when not built. */
  url(entry: string): string | undefined;
}

/** URL prefix the assets are served under (outside `/identity/`, so no identity route rules apply). */
export const PAGE_ASSETS_PREFIX = '/assets/identity';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Reads the built assets (`public/assets` next to the compiled demo) once at startup: a few small
 * files, served from memory. Running from sources without `npm run build` yields no assets and the
 * pages answer 503 saying so.
 *
 * @example
 * const assets = loadPageAssets(new URL('../public/assets', import.meta.url).pathname);
 */
export function loadPageAssets(directory: string): PageAssets {
  const manifestFile = join(directory, 'manifest.json');
  if (!existsSync(manifestFile)) return { files: new Map(), url: () => undefined };
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>;
  const files = new Map<string, PageAsset>();
  for (const name of readdirSync(directory)) {
    const contentType = TYPES[extname(name)];
    if (contentType !== undefined) files.set(name, { body: readFileSync(join(directory, name)), contentType });
  }
  return {
    files,
    url: (entry) => (manifest[entry] === undefined ? undefined : `${PAGE_ASSETS_PREFIX}/${manifest[entry]}`),
  };
}
