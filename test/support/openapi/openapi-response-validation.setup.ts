/**
 * Jest `setupFilesAfterEnv`: every response a test receives through supertest on an identity path
 * (`/identity/`, `/oauth/`) is checked against docs/openapi.json before the test's own
 * expectations run; a response the document does not describe fails the test that received it.
 */
import { appendFileSync } from 'node:fs';
import Test from 'supertest/lib/test.js';
import { checkIdentityResponse, isIdentityApiPath, type ReceivedResponse } from './openapi-response-check.js';

type Callback = (error: Error | null, response: ReceivedResponse | undefined) => void;
interface SupertestTest {
  method: string;
  url: string;
  assert(resError: unknown, response: ReceivedResponse | undefined, fn?: Callback): void;
}

const prototype = (Test as unknown as { prototype: SupertestTest }).prototype;
const LOG = process.env['OPENAPI_VALIDATION_LOG'];
const original = prototype.assert;

prototype.assert = function (this: SupertestTest, resError, response, fn) {
  if (response !== undefined && response !== null) {
    const path = new URL(this.url).pathname;
    if (isIdentityApiPath(path)) {
      const outcome = checkIdentityResponse(this.method, path, response);
      if (LOG !== undefined && outcome.scope !== 'operation') {
        appendFileSync(LOG, `${outcome.scope} ${this.method} ${path} ${response.status}\n`);
      }
      if (outcome.problems.length > 0) {
        const error = new Error(`response not described by docs/openapi.json:\n  ${outcome.problems.join('\n  ')}`);
        if (fn !== undefined) return fn.call(this, error, response);
        throw error;
      }
    }
  }
  return original.call(this, resError, response, fn);
};
