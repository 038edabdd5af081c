// Writes docs/openapi.json from the BUILT identity package (run after the build; `npm run build`
// runs it). The identity routes are the one source of truth: the document is generated from them.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where the built `@tessera/identity` is imported from (a path relative to this script, or the package name). */
const IDENTITY_PACKAGE = '@tessera/identity';

const OUTPUT = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

const { identityOpenApiDocument } = await import(
  IDENTITY_PACKAGE.startsWith('.') ? new URL(IDENTITY_PACKAGE, import.meta.url).href : IDENTITY_PACKAGE
);
writeFileSync(OUTPUT, `${JSON.stringify(identityOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${OUTPUT}`);
