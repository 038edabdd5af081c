import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROUTE_TABLES } from '../identity.router.js';
import { identityOpenApiDocument } from './identity-openapi.js';

const COMMITTED = fileURLToPath(new URL('../../../../../docs/openapi.json', import.meta.url));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('the identity OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(identityOpenApiDocument() as Record<string, unknown>);
    expect(result).toEqual({ valid: true });
  });

  it('documents every mounted identity route, and nothing else', () => {
    const paths = identityOpenApiDocument()['paths'] as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const mounted = ROUTE_TABLES.flat().map((row) => `${row.method} ${row.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    expect(documented.sort()).toEqual(mounted.sort());
  });

  it('matches the committed docs/openapi.json (regenerate with `npm run build`)', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    expect(committed).toBe(`${JSON.stringify(identityOpenApiDocument(), null, 2)}\n`);
  });

  it('names the configured session cookie and request id header and the deployment server', () => {
    const document = identityOpenApiDocument({
      sessionCookieName: '__Host-app_session',
      requestIdHeader: 'X-Correlation-ID',
      serverUrl: 'https://id.example.com',
    });
    const components = document['components'] as Record<string, Record<string, Record<string, unknown>>>;
    expect(components['securitySchemes']!['sessionCookie']!['name']).toBe('__Host-app_session');
    expect(document['servers']).toEqual([{ url: 'https://id.example.com' }]);
    const me = (document['paths'] as Record<string, Record<string, Record<string, unknown>>>)['/identity/v1/me']!;
    const ok = (me['get']!['responses'] as Record<string, { headers: Record<string, unknown> }>)['200']!;
    expect(Object.keys(ok.headers)).toContain('X-Correlation-ID');
  });
});
