import type { IdentityKernel } from '../../identity-kernel.js';
import { identityOpenApiDocument, type OpenApiDocument } from '../openapi/identity-openapi.js';
import { respondIdentityJson } from '../identity-response.js';
import { route, type IdentityRouteTable } from './route-table.js';

/** One document per kernel: the configured names never change after boot. */
const documents = new WeakMap<IdentityKernel, OpenApiDocument>();

function documentOf(kernel: IdentityKernel): OpenApiDocument {
  let document = documents.get(kernel);
  if (document === undefined) {
    document = identityOpenApiDocument({
      sessionCookieName: kernel.config.sessionCookie.name,
      requestIdHeader: kernel.config.requestIdHeader,
      serverUrl: kernel.config.publicBaseUrl,
    });
    documents.set(kernel, document);
  }
  return document;
}

/**
 * `GET /identity/v1/openapi.json`: this API's OpenAPI 3.1 document, for every caller, when the
 * `openApi` option is on (default in development and test); 404 otherwise.
 */
export const OPENAPI_ROUTES: IdentityRouteTable = [
  route({
    method: 'GET',
    path: '/identity/v1/openapi.json',
    callers: { anonymous: true, user: true, restricted: true },
    available: (kernel) => kernel.config.openApi,
    doc: {
      tag: 'client',
      summary: 'This OpenAPI document',
      description: 'Generated from the mounted route table; served when the `openApi` option is on.',
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document',
          body: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } } },
        },
      },
      errors: [],
    },
    handle: async ({ exchange, kernel }) => respondIdentityJson(exchange, 200, documentOf(kernel)),
  }),
];
