import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { membershipOf, scim, scimTenant, type ScimTenantFixture } from './scim.fixtures.js';

/**
 * One recorded request of an identity provider and what the server must answer. Strings may use
 * `{{name}}` for values captured by earlier steps. In `expect.body`, the strings `{{uuid}}`,
 * `{{etag}}`, `{{timestamp}}` and `{{any}}` match any value of that shape; objects match as
 * subsets, arrays element by element with the same length.
 */
export interface SequenceStep {
  readonly id: string;
  readonly title: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly expect: {
    readonly status: number;
    readonly body?: unknown;
    readonly headers?: Readonly<Record<string, string>>;
    /** JSON pointers that must be absent from the answer (e.g. `/password`). */
    readonly absent?: readonly string[];
  };
  /** name → JSON pointer into the answer body (or `header:etag`, `header:location`). */
  readonly capture?: Readonly<Record<string, string>>;
  /**
   * The identity membership of a captured identity user id afterwards, read over the identity
   * routes (`removed`: no longer listed there).
   */
  readonly membership?: { readonly user: string; readonly role?: string; readonly state: string };
}

/** A recorded client sequence (one file under `test/e2e/scim/sequences/`). */
export interface Sequence {
  readonly name: string;
  /** Where the request shapes come from (the provider's published documentation). */
  readonly source: string;
  readonly providerName: string;
  readonly groupRoles?: readonly {
    match: { displayName: string } | { externalId: string };
    role: 'admin' | 'publisher' | 'viewer';
  }[];
  readonly steps: readonly SequenceStep[];
}

const DIR = fileURLToPath(new URL('./sequences', import.meta.url));

/** Every sequence file, sorted by name. */
export function loadSequences(): { file: string; sequence: Sequence }[] {
  return readdirSync(DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, sequence: JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Sequence }));
}

function substitute(value: unknown, vars: Map<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{([A-Za-z0-9_]+)\}\}$/.exec(value);
    if (whole !== null && vars.has(whole[1]!)) return vars.get(whole[1]!);
    return value.replace(/\{\{([A-Za-z0-9_]+)\}\}/g, (match, name: string) =>
      vars.has(name) ? String(vars.get(name)) : match,
    );
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, vars));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, vars)]));
  }
  return value;
}

/** RFC 6901 JSON pointer. */
export function pointer(document: unknown, path: string): unknown {
  if (path === '') return document;
  let current = document;
  for (const raw of path.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null || !(key in current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const SHAPES: Record<string, RegExp> = {
  '{{uuid}}': /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  '{{etag}}': /^W\/"[0-9]+"$/,
  '{{timestamp}}': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
};

function matches(actual: unknown, expected: unknown, where: string): void {
  if (expected === '{{any}}') {
    expect({ where, present: actual !== undefined }).toEqual({ where, present: true });
    return;
  }
  if (typeof expected === 'string' && SHAPES[expected] !== undefined) {
    expect({ where, actual }).toEqual({ where, actual: expect.stringMatching(SHAPES[expected]) });
    return;
  }
  if (Array.isArray(expected)) {
    expect({ where, length: Array.isArray(actual) ? actual.length : actual }).toEqual({
      where,
      length: expected.length,
    });
    expected.forEach((item, index) => matches((actual as unknown[])[index], item, `${where}/${index}`));
    return;
  }
  if (typeof expected === 'object' && expected !== null) {
    expect({ where, isObject: typeof actual === 'object' && actual !== null }).toEqual({ where, isObject: true });
    for (const [key, item] of Object.entries(expected))
      matches((actual as Record<string, unknown>)[key], item, `${where}/${key}`);
    return;
  }
  expect({ where, actual }).toEqual({ where, actual: expected });
}

/**
 * Replays one sequence against a fresh tenant of `identity` (its own organization, owner and
 * connection), step by step, asserting status, headers, body shapes and identity memberships.
 *
 * @example
 * await replaySequence(identity, sequence);
 */
export async function replaySequence(identity: IdentityTestApp, sequence: Sequence): Promise<ScimTenantFixture> {
  const tenant = await scimTenant(identity, sequence.providerName, sequence.groupRoles ?? []);
  const vars = new Map<string, unknown>([['organizationId', tenant.organizationId]]);
  for (const step of sequence.steps) {
    const path = substitute(step.path, vars) as string;
    const headers = substitute(step.headers ?? {}, vars) as Record<string, string>;
    const body = step.body === undefined ? undefined : substitute(step.body, vars);
    const method = step.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const res = await scim(identity, tenant.token, method, path, body, headers);
    const where = `${sequence.name} ${step.id} (${step.title})`;
    expect({ where, status: res.status }).toEqual({ where, status: step.expect.status });
    for (const [name, value] of Object.entries(substitute(step.expect.headers ?? {}, vars) as Record<string, string>)) {
      matches(res.headers[name.toLowerCase()], value, `${where} header ${name}`);
    }
    if (step.expect.body !== undefined) matches(res.body, substitute(step.expect.body, vars), where);
    for (const path of step.expect.absent ?? [])
      expect({ where, path, value: pointer(res.body, path) }).toEqual({ where, path, value: undefined });
    for (const [name, from] of Object.entries(step.capture ?? {})) {
      const value = from.startsWith('header:') ? res.headers[from.slice(7)] : pointer(res.body, from);
      expect({ where, capture: name, present: value !== undefined }).toEqual({ where, capture: name, present: true });
      vars.set(name, value);
    }
    if (step.membership !== undefined) {
      const userId = substitute(step.membership.user, vars) as string;
      const membership = await membershipOf(identity, tenant.organizationId, tenant.owner.session, userId);
      // The identity route lists current memberships only: a removed one is absent there.
      if (step.membership.state === 'removed') {
        expect({ where, membership }).toEqual({ where, membership: undefined });
        continue;
      }
      expect({ where, membership }).toEqual({
        where,
        membership: expect.objectContaining({
          state: step.membership.state,
          ...(step.membership.role === undefined ? {} : { role: step.membership.role }),
        }),
      });
    }
  }
  return tenant;
}
