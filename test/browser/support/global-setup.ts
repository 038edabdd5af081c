import { execFileSync } from 'node:child_process';

/** Builds the demo once (swc + esbuild page bundles) before the browser journeys start it from `dist/`. */
export default function globalSetup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-types'], { stdio: 'inherit' });
}
