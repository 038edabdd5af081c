import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import { patchOp, scim, scimTenant, scimUser, SCIM_TYPE, tenantRows, type ScimTenantFixture } from './scim.fixtures.js';

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

function raw(
  identity: IdentityTestApp,
  tenant: ScimTenantFixture,
  method: 'post' | 'patch',
  path: string,
  type: string | null,
  body: string,
) {
  let req = request(identity.app.getHttpServer())[method](path).set('authorization', `Bearer ${tenant.token}`);
  if (type !== null) req = req.set('content-type', type);
  return req.send(body);
}

describe('SCIM wire protocol (identity-http §7 as changed by issue 15)', () => {
  let identity: IdentityTestApp;
  let tenant: ScimTenantFixture;

  // Booting on embedded PGlite next to other suites can take longer than the 30 s default.
  beforeAll(async () => {
    identity = await bootIdentityApp({ limits: { scimBodyBytes: 64 * 1024 } as never }, new Date().toISOString());
    tenant = await scimTenant(identity, 'generic');
  }, 120_000);
  afterAll(() => identity.close());

  it('accepts application/scim+json and application/json with or without charset; anything else is 415', async () => {
    let n = 0;
    for (const type of [
      'application/scim+json',
      'application/scim+json; charset=utf-8',
      'application/json',
      'application/json;charset=UTF-8',
    ]) {
      const res = await raw(
        identity,
        tenant,
        'post',
        '/scim/v2/Users',
        type,
        JSON.stringify(scimUser(`media-${n++}@example.com`)),
      );
      expect({ type, status: res.status, contentType: res.headers['content-type'] }).toEqual({
        type,
        status: 201,
        contentType: SCIM_TYPE,
      });
    }
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/scim+json; charset=latin1',
      null,
    ]) {
      const res = await raw(
        identity,
        tenant,
        'post',
        '/scim/v2/Users',
        type,
        JSON.stringify(scimUser('nope@example.com')),
      );
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
      expect(res.body.schemas).toEqual([ERROR_SCHEMA]);
    }
  });

  it('refuses malformed JSON, duplicate keys and a non-object body with 400 invalidSyntax, an oversized body with 413 tooMany', async () => {
    for (const body of ['{', '{"userName":"a@example.com","userName":"b@example.com"}', '[]', '"x"', '']) {
      const res = await raw(identity, tenant, 'post', '/scim/v2/Users', 'application/scim+json', body);
      expect({ body, status: res.status, scimType: res.body.scimType }).toEqual({
        body,
        status: 400,
        scimType: 'invalidSyntax',
      });
    }
    const big = JSON.stringify(scimUser('big@example.com', { displayName: 'x'.repeat(70 * 1024) }));
    const res = await raw(identity, tenant, 'post', '/scim/v2/Users', 'application/scim+json', big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: '413', scimType: 'tooMany' });
    expect(await tenantRows(identity).count('scim_users', "user_name = 'big@example.com'")).toBe(0);
  });

  it('ETags: GET answers W/"n", If-None-Match → 304, a stale If-Match → 412, a matching one applies', async () => {
    const created = await scim(identity, tenant.token, 'post', '/scim/v2/Users', scimUser('etag@example.com'));
    const path = `/scim/v2/Users/${created.body.id}`;
    expect(created.headers.etag).toBe('W/"1"');
    expect((await scim(identity, tenant.token, 'get', path, undefined, { 'if-none-match': 'W/"1"' })).status).toBe(304);
    expect((await scim(identity, tenant.token, 'get', path, undefined, { 'if-none-match': 'W/"7"' })).status).toBe(200);
    const stale = await scim(
      identity,
      tenant.token,
      'patch',
      path,
      patchOp({ op: 'replace', path: 'title', value: 'CEO' }),
      { 'if-match': 'W/"7"' },
    );
    expect(stale.status).toBe(412);
    const applied = await scim(
      identity,
      tenant.token,
      'patch',
      path,
      patchOp({ op: 'replace', path: 'title', value: 'CEO' }),
      { 'if-match': 'W/"1"' },
    );
    expect(applied.status).toBe(200);
    expect(applied.headers.etag).toBe('W/"2"');
    expect(applied.body.meta.version).toBe('W/"2"');
    const refused = await scim(identity, tenant.token, 'get', path, undefined, { 'if-match': 'W/"2"' });
    expect(refused.status).toBe(400);
    expect((await scim(identity, tenant.token, 'delete', path, undefined, { 'if-match': 'W/"1"' })).status).toBe(412);
    expect((await scim(identity, tenant.token, 'delete', path, undefined, { 'if-match': 'W/"2"' })).status).toBe(204);
  });

  it('Idempotency-Key: a retry answers the first result, another request with the key is 409, concurrent retries create one user', async () => {
    const body = scimUser('idem@example.com');
    const first = await scim(identity, tenant.token, 'post', '/scim/v2/Users', body, {
      'idempotency-key': 'okta-retry-1',
    });
    const retry = await scim(identity, tenant.token, 'post', '/scim/v2/Users', body, {
      'idempotency-key': 'okta-retry-1',
    });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    const other = await scim(identity, tenant.token, 'post', '/scim/v2/Users', scimUser('other@example.com'), {
      'idempotency-key': 'okta-retry-1',
    });
    expect(other.status).toBe(409);
    expect(other.body.scimType).toBe('uniqueness');
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () =>
        scim(identity, tenant.token, 'post', '/scim/v2/Users', scimUser('race@example.com'), {
          'idempotency-key': '0192f7a0-race',
        }),
      ),
    );
    expect(concurrent.map((res) => res.status)).toEqual(Array(10).fill(201));
    expect(new Set(concurrent.map((res) => res.body.id)).size).toBe(1);
    expect(await tenantRows(identity).count('scim_users', "lower(user_name) = 'race@example.com'")).toBe(1);
    for (const key of ['', 'x'.repeat(201), 'has space']) {
      const res = await scim(identity, tenant.token, 'post', '/scim/v2/Users', scimUser('bad-key@example.com'), {
        'idempotency-key': key,
      });
      expect({ key, status: res.status }).toEqual({ key, status: 400 });
    }
  });

  it('lists page with startIndex/count, sort, attributes and excludedAttributes', async () => {
    const fresh = await scimTenant(identity, 'paging');
    for (const name of ['carol', 'alice', 'bob', 'dave']) {
      const res = await scim(
        identity,
        fresh.token,
        'post',
        '/scim/v2/Users',
        scimUser(`${name}@example.com`, { name: { givenName: name } }),
      );
      expect(res.status).toBe(201);
    }
    const page = await scim(
      identity,
      fresh.token,
      'get',
      '/scim/v2/Users?sortBy=userName&sortOrder=descending&startIndex=2&count=2&attributes=userName',
    );
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((user: { userName: string }) => user.userName)).toEqual([
      'carol@example.com',
      'bob@example.com',
    ]);
    expect(Object.keys(page.body.Resources[0])).toEqual(expect.arrayContaining(['id', 'userName']));
    expect(page.body.Resources[0].name).toBeUndefined();
    const excluded = await scim(identity, fresh.token, 'get', '/scim/v2/Users?excludedAttributes=name,emails&count=1');
    expect(excluded.body.Resources[0].name).toBeUndefined();
    expect(excluded.body.Resources[0].userName).toEqual(expect.any(String));
    const counted = await scim(identity, fresh.token, 'get', '/scim/v2/Users?count=0');
    expect(counted.body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    const bad = await scim(identity, fresh.token, 'get', '/scim/v2/Users?filter=userName%20eq');
    expect(bad.status).toBe(400);
    expect(bad.body.scimType).toBe('invalidFilter');
  });
});
