import { IDENTITY_ERROR_CATALOGUE, type IdentityErrorCode } from '../../errors/identity.errors.js';
import { OAUTH_ERROR_CATALOGUE, OAUTH_ERROR_CODES, type OAuthErrorCode } from '../../errors/oauth.errors.js';
import { ref, type JsonSchema } from '../routes/route-doc.js';
import { object } from './openapi-fields.js';

/*
 * The error bodies of the document: the identity envelope per code (identity-http §8.1) and the
 * RFC 6749 body per OAuth code (identity-http §5), as components, and the schemas restricting a
 * response to a route's codes.
 */

/** Component name of the error envelope of one code (`ErrorNotFound`). */
export function errorComponent(code: IdentityErrorCode): string {
  return `Error${code.replace(/(^|_)([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase())}`;
}

/** The envelope of each code, with its fixed message and retryability (identity-http §8.1). */
export function errorEnvelopes(): Record<string, JsonSchema> {
  const codes = Object.keys(IDENTITY_ERROR_CATALOGUE) as IdentityErrorCode[];
  return Object.fromEntries(
    codes.map((code) => {
      const { message, retryable } = IDENTITY_ERROR_CATALOGUE[code];
      const error = object(['code', 'message', 'retryable'], {
        code: { const: code },
        message: { const: message },
        requestId: { type: 'string', minLength: 1, maxLength: 255 },
        retryable: { const: retryable },
      });
      return [errorComponent(code), object(['error'], { error })];
    }),
  );
}

/**
 * The identity error envelope (identity-http §8.1) restricted to `codes`.
 *
 * @example
 * errorSchema(['not_found']); // { $ref: '#/components/schemas/ErrorNotFound' }
 */
export function errorSchema(codes: readonly IdentityErrorCode[]): JsonSchema {
  const refs = codes.map((code) => ref(errorComponent(code)));
  return refs.length === 1 ? refs[0]! : { oneOf: refs };
}

/**
 * The name of the component holding the RFC 6749 body of `code`.
 *
 * @example
 * oauthErrorComponent('slow_down'); // 'OAuthErrorSlowDown'
 */
export function oauthErrorComponent(code: OAuthErrorCode): string {
  return `OAuthError${code.replace(/(^|_)([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase())}`;
}

/** The RFC 6749 §5.2 body of each OAuth code, with its fixed description (identity-http §5). */
export function oauthErrorBodies(): Record<string, JsonSchema> {
  return Object.fromEntries(
    OAUTH_ERROR_CODES.map((code) => [
      oauthErrorComponent(code),
      object(['error', 'error_description'], {
        error: { const: code },
        error_description: { const: OAUTH_ERROR_CATALOGUE[code].description },
      }),
    ]),
  );
}

/**
 * The RFC 6749 body schema of `codes`: a `$ref` for one, `oneOf` for several.
 *
 * @example
 * oauthErrorSchema(['authorization_pending', 'slow_down']);
 */
export function oauthErrorSchema(codes: readonly OAuthErrorCode[]): JsonSchema {
  const refs = codes.map((code) => ref(oauthErrorComponent(code)));
  return refs.length === 1 ? refs[0]! : { oneOf: refs };
}
