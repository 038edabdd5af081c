// `npm run docs:options`: regenerates the README's table of every IdentityModule option between
// the identity-options markers. Defaults and bounds come from the built @tessera/identity
// (IDENTITY_CONFIG_DEFAULTS, IDENTITY_CONFIG_BOUNDS: the values resolution and validation use);
// types and descriptions from the JSDoc of the option interfaces in libs/identity/src.
// test/e2e/readme/options-table.e2e-spec.ts fails when the README differs from this output.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import ts from 'typescript';
import * as prettier from 'prettier';

export const START_MARKER = '<!-- identity-options:start -->';
export const END_MARKER = '<!-- identity-options:end -->';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the option interfaces are declared, relative to libs/identity/src. */
const SOURCES = [
  'identity.module-definition.ts',
  'config/identity.config.ts',
  'config/identity-bounds.config.ts',
  'runtime/key-ring.resolver.ts',
  'federation/federation.options.ts',
  'scim/scim.options.ts',
  'health/identity-health.options.ts',
];

/** Interfaces and type aliases of the sources: name → { doc, defaultTag, members }. */
function declarations(sourceDir) {
  const found = new Map();
  for (const file of SOURCES) {
    const text = readFileSync(join(sourceDir, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement)) {
        found.set(statement.name.text, { ...docOf(statement), members: statement.members });
      } else if (ts.isTypeAliasDeclaration(statement)) {
        found.set(statement.name.text, {
          ...docOf(statement),
          members: ts.isTypeLiteralNode(statement.type) ? statement.type.members : undefined,
        });
      }
    }
  }
  return found;
}

/** The JSDoc text of a node (tags left out) and its `@default` tag. */
function docOf(node) {
  const docs = ts.getJSDocCommentsAndTags(node).filter((doc) => ts.isJSDoc(doc));
  const doc = docs.at(-1);
  if (doc === undefined) return { doc: '', defaultTag: undefined };
  const tag = (doc.tags ?? []).find((t) => t.tagName.text === 'default');
  return {
    doc: ts.getTextOfJSDocComment(doc.comment) ?? '',
    defaultTag: tag === undefined ? undefined : (ts.getTextOfJSDocComment(tag.comment) ?? '').trim(),
  };
}

/** `Partial<X>`, `Readonly<X>` → X. */
function unwrap(type) {
  while (
    type !== undefined &&
    ts.isTypeReferenceNode(type) &&
    ['Partial', 'Readonly'].includes(type.typeName.getText()) &&
    type.typeArguments?.length === 1
  ) {
    type = type.typeArguments[0];
  }
  return type;
}

function typeText(type) {
  return type
    .getText()
    .replace(/\breadonly\s+/g, '')
    .replace(/\s+/g, ' ')
    .replace(/;\s*}/g, ' }');
}

/** Removes references to the contract documents outside the repository, collapses whitespace. */
function cleanText(text) {
  return text
    .replace(
      /\s*\((?:`?identity-(?:model|http)(?:\.md)?`?\s*§[\d.]+(?:[,;]?\s*(?:§|`?identity-(?:model|http)(?:\.md)?`?\s*§)[\d.]+)*)\)/g,
      '',
    )
    .replace(/`?identity-(?:model|http)(?:\.md)?`?\s*§[\d.]+\s*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const cell = (text) => text.replace(/\|/g, '\\|');
const code = (text) => `\`${text}\``;

function human(n, unit) {
  if (unit === 'seconds') {
    for (const [size, name] of [
      [86_400, 'd'],
      [3600, 'h'],
      [60, 'min'],
    ]) {
      if (n >= size && n % size === 0) return `${n / size} ${name}`;
    }
  }
  if (unit === 'bytes') {
    for (const [size, name] of [
      [1024 * 1024, 'MiB'],
      [1024, 'KiB'],
    ]) {
      if (n >= size && n % size === 0) return `${n / size} ${name}`;
    }
  }
  return undefined;
}

function unitOf(path) {
  if (/Seconds$/.test(path)) return 'seconds';
  if (/Bytes$/.test(path)) return 'bytes';
  return undefined;
}

function formatNumber(n, unit) {
  const readable = unit === undefined ? undefined : human(n, unit);
  return readable === undefined ? code(String(n)) : `${code(String(n))} (${readable})`;
}

function formatValue(value, path) {
  if (typeof value === 'number') return formatNumber(value, unitOf(path));
  if (value === undefined) return '';
  return code(literal(value));
}

/** A value as it is written in TypeScript: `{ limit: 5, windowSeconds: 900 }`, `[]`, `'lax'`. */
function literal(value) {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, inner]) => `${key}: ${literal(inner)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return String(value);
}

function lookup(object, keys) {
  let value = object;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** The bounds column of a configuration option (`keys` below `config`). */
function boundsOf(bounds, keys) {
  const path = keys.join('.');
  const [section, name] = keys;
  const range = ([min, max], unit) => {
    const end = (v) => (typeof v === 'string' ? code(`${section}.${v}`) : formatNumber(v, unit));
    return `${end(min)}..${end(max)}`;
  };
  if (keys.length === 2 && section === 'lifetimes' && bounds.lifetimes[name])
    return range(bounds.lifetimes[name], 'seconds');
  if (keys.length === 2 && section === 'limits' && bounds.limits[name]) return range(bounds.limits[name], unitOf(name));
  if (keys.length === 2 && section === 'rateLimits') {
    const { limit, windowSeconds } = bounds.rateLimits;
    return `limit ${range(limit)}, windowSeconds ${range(windowSeconds, 'seconds')}`;
  }
  if (keys.length === 2 && (section === 'audit' || section === 'maintenance') && bounds[section][name]) {
    const off = bounds.offValues[path];
    const text = range(bounds[section][name], unitOf(name));
    return off === undefined ? text : `${code(String(off))} (off) or ${text}`;
  }
  if (path === 'storageNamespace') return `matches ${code(bounds.storageNamespace.pattern)}`;
  if (path === 'requestIdHeader') return `≤ ${bounds.requestIdHeader.maxChars} characters`;
  if (section === 'secrets' && keys.at(-1) === 'previous') return `≤ ${bounds.secrets.previousVersions} references`;
  if (section === 'secrets' || path === 'bootstrap.secretRef') return `secret ≥ ${bounds.secrets.minBytes} bytes`;
  return '';
}

/**
 * The options table as Markdown: every option of `IdentityModuleOptions` (and the module extra
 * `store`), with every `config` option expanded, nested sections included.
 *
 * @param identity the `@tessera/identity` module (IDENTITY_CONFIG_DEFAULTS, IDENTITY_CONFIG_BOUNDS)
 * @param sourceDir libs/identity/src
 */
export function identityOptionsTable(identity, sourceDir = join(ROOT, 'libs/identity/src')) {
  const rows = identityOptionRows(identity, sourceDir);
  const lines = [
    '| Option | Type | Default | Bounds | Description |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) =>
      [
        code(row.path.join('.')),
        row.type === 'object' ? 'object' : code(row.type),
        row.fallback,
        row.bounds,
        cleanText(row.description),
      ]
        .map(cell)
        .join(' | ')
        .replace(/^/, '| ')
        .concat(' |'),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Options whose JSDoc `@default` disagrees with the default resolution applies (the JSDoc is what
 * editors show; the data is what runs).
 */
export function defaultTagMismatches(identity, sourceDir = join(ROOT, 'libs/identity/src')) {
  return identityOptionRows(identity, sourceDir)
    .filter((row) => row.data !== undefined && row.tag !== undefined && !tagMatches(row.tag, row.data))
    .map((row) => ({ option: row.path.join('.'), tag: row.tag, value: literal(row.data) }));
}

const SIZES = { KiB: 1024, MiB: 1024 * 1024 };

function tagMatches(tag, value) {
  const text = tag
    .replace(/;.*$/, '')
    .replace(/\s*\(.*\)\s*$/, '')
    .trim();
  if (typeof value === 'number') {
    const sized = /^(\d+) (KiB|MiB)$/.exec(text);
    const number = sized ? Number(sized[1]) * SIZES[sized[2]] : Number(text.replace(/(\d) (?=\d{3}\b)/g, '$1'));
    return number === value;
  }
  return text === literal(value);
}

/** One row per option (sections included), with the data default and JSDoc `@default` it came from. */
function identityOptionRows(identity, sourceDir) {
  const decls = declarations(sourceDir);
  const defaults = identity.IDENTITY_CONFIG_DEFAULTS;
  const bounds = identity.IDENTITY_CONFIG_BOUNDS;
  if (defaults === undefined || bounds === undefined)
    throw new Error(
      '@tessera/identity lacks IDENTITY_CONFIG_DEFAULTS/IDENTITY_CONFIG_BOUNDS: build it first (npm run build)',
    );
  const rows = [];

  const walk = (members, prefix, required) => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) || member.type === undefined) continue;
      const name = member.name.getText();
      const path = [...prefix, name];
      const isRequired = required && member.questionToken === undefined;
      const type = unwrap(member.type);
      const own = docOf(member);
      const referenced = ts.isTypeReferenceNode(type) ? decls.get(type.typeName.getText()) : undefined;
      const description = own.doc || referenced?.doc || '';
      const configKeys = path[0] === 'config' ? path.slice(1) : undefined;
      const nested = ts.isTypeLiteralNode(type) ? type.members : referenced?.members;
      if (configKeys !== undefined && configKeys.join('.') === 'rateLimits') {
        rows.push({ path, type: 'object', fallback: '', bounds: '', description });
        for (const [policy, value] of Object.entries(defaults.rateLimits)) {
          rows.push({
            path: [...path, policy],
            type: '{ limit, windowSeconds } | false',
            fallback: formatValue(value, ''),
            bounds: boundsOf(bounds, [...configKeys, policy]),
            description: '',
          });
        }
        continue;
      }
      if (nested !== undefined) {
        rows.push({ path, type: 'object', fallback: isRequired ? 'required' : '', bounds: '', description });
        walk(nested, path, isRequired);
        continue;
      }
      const data = configKeys === undefined ? undefined : lookup(defaults, configKeys);
      const fallback =
        data !== undefined
          ? formatValue(data, name)
          : own.defaultTag !== undefined
            ? own.defaultTag.replace(/;.*$/, '').trim() || ''
            : isRequired
              ? 'required'
              : '';
      rows.push({
        path,
        type: typeText(type),
        fallback: data === undefined && own.defaultTag !== undefined ? codeIfLiteral(fallback) : fallback,
        bounds: configKeys === undefined ? '' : boundsOf(bounds, configKeys),
        description,
        data,
        tag: own.defaultTag,
      });
    }
  };
  const options = decls.get('IdentityModuleOptions');
  const extras = decls.get('IdentityModuleExtras');
  if (options?.members === undefined || extras?.members === undefined)
    throw new Error('IdentityModuleOptions not found');
  walk(options.members, [], true);
  walk(extras.members, [], true);
  return rows;
}

/** A `@default` tag as shown: code when it is a literal or an expression, prose otherwise. */
function codeIfLiteral(text) {
  if (text === '' || text.includes('`')) return text;
  const note = /^(.+?)\s+(\(.*\))$/.exec(text);
  if (note !== null) return `${code(note[1])} ${note[2]}`;
  const condition = /^(\S+)\s+((?:in|when|unless|if|with|for|otherwise)\b.*)$/.exec(text);
  return condition === null ? code(text) : `${code(condition[1])} ${condition[2]}`;
}

/** `markdown` formatted as the repository's Prettier configuration formats it. */
export async function formatMarkdown(markdown) {
  const config = (await prettier.resolveConfig(join(ROOT, 'README.md'))) ?? {};
  return prettier.format(markdown, { ...config, parser: 'markdown' });
}

/** The README with the region between the markers replaced by `table`. */
export function replaceOptionsRegion(readme, table) {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start === -1 || end === -1 || end < start) throw new Error(`README lacks ${START_MARKER} … ${END_MARKER}`);
  return `${readme.slice(0, start + START_MARKER.length)}\n\n${table.trimEnd()}\n\n${readme.slice(end)}`;
}

/** The region between the markers, as it is in the README. */
export function optionsRegion(readme) {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start === -1 || end === -1 || end < start) throw new Error(`README lacks ${START_MARKER} … ${END_MARKER}`);
  return readme.slice(start + START_MARKER.length, end).trim();
}

/** Rewrites the README's options region from `identity`; true when it changed. */
export async function regenerateReadme(identity, readmePath = join(ROOT, 'README.md')) {
  const table = await formatMarkdown(identityOptionsTable(identity));
  const before = readFileSync(readmePath, 'utf8');
  const after = replaceOptionsRegion(before, table);
  if (after !== before) writeFileSync(readmePath, after);
  return after !== before;
}

async function main() {
  // The built package, resolved as any consumer resolves it (npm workspace link → libs/identity/dist).
  const identity = await import('@tessera/identity');
  const changed = await regenerateReadme(identity);
  console.log(changed ? 'README options table regenerated' : 'README options table is up to date');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
