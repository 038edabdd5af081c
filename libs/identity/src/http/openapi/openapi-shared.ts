/** Helpers shared by the identity and OAuth operation builders of the OpenAPI document. */

/**
 * The headers every identity and OAuth response carries, as references to the header components.
 *
 * @example
 * const headers = { ...commonHeaders('X-Request-ID'), Pragma: { $ref: '#/components/headers/Pragma' } };
 */
export function commonHeaders(requestIdHeader: string): Record<string, unknown> {
  return {
    'Cache-Control': { $ref: '#/components/headers/CacheControl' },
    [requestIdHeader]: { $ref: '#/components/headers/RequestId' },
  };
}

/**
 * The document's header components: `no-store`, the request id, `Pragma` and `Retry-After`.
 *
 * @example
 * const components = { headers: headerComponents('X-Request-ID') };
 */
export function headerComponents(requestIdHeader: string): Record<string, unknown> {
  return {
    CacheControl: {
      required: true,
      schema: { const: 'no-store' },
      description: 'Identity responses are never cached.',
    },
    RequestId: {
      required: true,
      schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,255}$' },
      description: `The request's correlation id (\`${requestIdHeader}\`): the caller's valid one, or a generated \`req_…\`.`,
    },
    Pragma: {
      required: true,
      schema: { const: 'no-cache' },
      description: 'OAuth responses are never cached by HTTP/1.0 caches either.',
    },
    RetryAfter: {
      required: true,
      schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
      description: 'Seconds until the rate-limit window ends (≥ 1).',
    },
  };
}

/**
 * A word with its first letter upper-cased (operation ids).
 *
 * @example
 * capitalise('device'); // 'Device'
 */
export function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
