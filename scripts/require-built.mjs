// `prepack` of every package: refuse to pack a package whose dist/ is missing, so a
// tarball never ships without its JavaScript and declarations. Run `npm run build` first.
import { existsSync, readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const missing = [manifest.exports['.'].import, manifest.exports['.'].types].filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(`${manifest.name}: ${missing.join(', ')} missing — run \`npm run build\` at the repository root first`);
  process.exit(1);
}
