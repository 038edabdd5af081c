import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { IDENTITY_ERROR_CATALOGUE, type IdentityErrorCode } from '@tessera/identity';

/** A response as supertest received it. */
export interface ReceivedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  readonly text?: string;
}

type Json = Record<string, any>;

const DOCUMENT_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
const BASE = 'https://tessera.invalid/openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Identity JSON is always exactly this media type (identity-http §1). */
const JSON_TYPE = /^application\/json; charset=utf-8$/i;

const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its function is the default export or that export's `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;
addFormats(ajv);
ajv.addSchema({ $id: BASE, components: { schemas: document.components.schemas } });
const compiled = new Map<unknown, ValidateFunction>();

/** Compiles a schema of the document whose `$ref`s point into `#/components/schemas`. */
function schemaValidator(schema: unknown): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    // Rebase the fragment's local refs on the document so they resolve against its components.
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`));
    validate = ajv.compile(rebased);
    compiled.set(schema, validate);
  }
  return validate;
}

function resolve(object: Json): Json {
  const target = object['$ref'] as string | undefined;
  if (target === undefined) return object;
  return target
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
}

const TEMPLATES = Object.keys(document.paths as Json).map((template) => ({
  template,
  segments: template.split('/'),
}));

/**
 * The documented path template of `path`, matched like the radix router: segment-exact, one
 * trailing `/` ignored, and a static segment preferred over a parameter at each position.
 */
export function templateOf(path: string): string | undefined {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed.split('/');
  const matches = TEMPLATES.filter(
    (entry) =>
      entry.segments.length === segments.length &&
      entry.segments.every((segment, i) => (segment.startsWith('{') ? segments[i] !== '' : segment === segments[i])),
  );
  const rank = (entry: (typeof TEMPLATES)[number]) =>
    entry.segments.map((s) => (s.startsWith('{') ? '0' : '1')).join('');
  return matches.sort((a, b) => (rank(a) < rank(b) ? 1 : -1))[0]?.template;
}

function headerValues(response: ReceivedResponse, name: string): string[] {
  const value = response.headers[name.toLowerCase()];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Checks one documented response object (status already matched) against what was received. */
function checkAgainst(answer: Json, response: ReceivedResponse, head: boolean, where: string): string[] {
  const problems: string[] = [];
  for (const [name, declared] of Object.entries((answer['headers'] ?? {}) as Json)) {
    const header = resolve(declared as Json);
    const values = headerValues(response, name);
    if (values.length === 0) {
      if (header['required'] === true) problems.push(`${where}: required header ${name} is missing`);
      continue;
    }
    const validate = schemaValidator(header['schema'] ?? {});
    for (const value of values) {
      if (!validate(value))
        problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
    }
  }
  const content = answer['content'] as Json | undefined;
  if (content === undefined) return problems;
  const media = content['application/json'] as Json | undefined;
  const type = headerValues(response, 'content-type')[0];
  if (media === undefined) {
    // A non-JSON body (SAML metadata, an export): one of the documented media types, no schema to apply.
    const documented = Object.keys(content);
    if (head) return problems;
    const ok = type !== undefined && documented.some((media) => type.toLowerCase().startsWith(media));
    return ok
      ? problems
      : [...problems, `${where}: content-type ${type ?? '(none)'}, documented ${documented.join(', ')}`];
  }
  if (head) return problems;
  if (type === undefined || !JSON_TYPE.test(type)) problems.push(`${where}: content-type ${type ?? '(none)'}`);
  const validate = schemaValidator(media['schema']);
  if (!validate(response.body)) {
    problems.push(`${where}: body ${ajv.errorsText(validate.errors, { separator: '; ' })}: ${shown(response)}`);
  }
  return problems;
}

/**
 * The body of an error answer, to show in a failure (a success body may carry tokens or recovery
 * codes shown once, so only its schema errors are shown).
 */
function shown(response: ReceivedResponse): string {
  const text = response.text;
  if (response.status < 400 || text === undefined) return '(body not shown)';
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

/** What happened to one response: `undefined` when it is out of scope, else the problems found. */
export interface CheckOutcome {
  readonly scope: 'operation' | 'method_not_allowed' | 'unmatched' | 'excluded';
  readonly problems: readonly string[];
}

/** A path the identity API owns: where every response must be described by the document. */
export function isIdentityApiPath(path: string): boolean {
  return path.startsWith('/identity/') || path.startsWith('/oauth/');
}

/**
 * Host pages the demo serves under `/identity/` (its HTML pages, e.g. `/identity/bootstrap`, and
 * `/identity/docs`): they are the host's routes, not identity API operations, and are never JSON
 * (a GET/HEAD outside `/identity/v1/` answered with HTML, or the viewer's static files).
 */
function isHostPage(method: string, path: string, response: ReceivedResponse): boolean {
  if (path.startsWith('/identity/v1/') || path.startsWith('/oauth/')) return false;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const type = headerValues(response, 'content-type')[0] ?? '';
  return !/^application\/json/i.test(type);
}

/**
 * Checks a response to `method path` against docs/openapi.json: the operation must exist and
 * document the status, its required headers must be present and valid, the content type must be
 * identity JSON and the body must match the schema. A GET operation also describes HEAD (no body).
 * Another method on a documented path must be the documented 405 or a shared-stage error (stages 1–5
 * run before the route match); a path the document does not know must be a shared-stage error or the
 * documented `UnknownPath` 404 (the host's miss) — unless it is a host page ({@link isHostPage}).
 */
export function checkIdentityResponse(method: string, path: string, response: ReceivedResponse): CheckOutcome {
  const upper = method.toUpperCase();
  const template = templateOf(path);
  const where = `${upper} ${path} → ${response.status}`;
  if (template === undefined) {
    if (isHostPage(upper, path, response)) return { scope: 'excluded', problems: [] };
    const head = upper === 'HEAD';
    const unknown = document.components.responses.UnknownPath as Json;
    if (response.status === 404 && checkAgainst(unknown, response, head, where).length === 0) {
      return { scope: 'unmatched', problems: [] };
    }
    return { scope: 'unmatched', problems: checkShared(response, head, `${where} (no documented path)`) };
  }
  const item = document.paths[template] as Json;
  const operation = (item[upper === 'HEAD' ? 'get' : upper.toLowerCase()] ?? undefined) as Json | undefined;
  if (operation === undefined) {
    const allowed = METHODS.filter((m) => item[m] !== undefined);
    const head = upper === 'HEAD';
    const responses = document.components.responses as Json;
    if (response.status !== 405) {
      const problems = checkShared(response, head, where);
      return {
        scope: 'method_not_allowed',
        problems:
          problems.length === 0
            ? []
            : [`${where}: ${upper} is not documented on ${template} (${allowed.join(', ')})`, ...problems],
      };
    }
    return {
      scope: 'method_not_allowed',
      problems: checkAgainst(
        (template.startsWith('/oauth/') ? responses.OAuthMethodNotAllowed : responses.MethodNotAllowed) as Json,
        response,
        head,
        where,
      ),
    };
  }
  const declared = (operation['responses'] as Json)[String(response.status)] as Json | undefined;
  if (declared === undefined) {
    const documented = Object.keys(operation['responses'] as Json).join(', ');
    return {
      scope: 'operation',
      problems: [
        `${where}: status ${response.status} is not documented for ${upper} ${template} (${documented}): ${shown(response)}`,
      ],
    };
  }
  return { scope: 'operation', problems: checkAgainst(resolve(declared), response, upper === 'HEAD', where) };
}

/** A shared-stage error (stages 1–5 answer before the route match): `#/components/responses/SharedStageError`. */
function checkShared(response: ReceivedResponse, head: boolean, where: string): string[] {
  const answer = document.components.responses.SharedStageError as Json;
  const problems = checkAgainst(answer, response, head, where);
  const code = (response.body as Json | undefined)?.['error']?.['code'] as IdentityErrorCode | undefined;
  if (!head && code !== undefined && IDENTITY_ERROR_CATALOGUE[code]?.status !== response.status) {
    problems.push(`${where}: ${code} is not answered with ${response.status}`);
  }
  return problems;
}
