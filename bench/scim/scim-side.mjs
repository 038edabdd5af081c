// What both sides of bench/scim share: a SCIM client over one keep-alive agent with the bearer
// token, the seeded users' ids, the operations the rounds time (each response's status and shape
// checked), and the user set-up over HTTP.
import { createHash } from 'node:crypto';
import { expectStatus, request } from '../support/bench-http.mjs';
import { inParallel } from '../support/load-loops.mjs';
import { userBody, userTokens } from './seed-rows.mjs';

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const CONFLICT_RETRIES = 50;

/** The md5 of `text` in hex (the seeded ids of both sides are md5s of `bench-<kind>-<n>`). */
export const md5 = (text) => createHash('md5').update(text).digest('hex');

/**
 * A SCIM client of one side: `base` (server URL), `root` (the SCIM base path, e.g. `/scim/v2`),
 * `token`. `scimId(n)` is the id of seeded user `n` (past the HTTP-created ones).
 */
export function scimSide({ name, base, root, token, scimId }) {
  const headers = { authorization: `Bearer ${token}` };
  const call = (method, path, body) => request(base, method, `${root}${path}`, { body, headers });
  const ids = new Map();
  const side = {
    name,
    call,
    scimId,
    /** Group PATCHes answered 409 and retried (since the counter was last set to 0). */
    conflicts: 0,
    /** The id of user `n`: a seeded one computed, an HTTP-created one as its create answered. */
    userId: (n) => ids.get(n) ?? scimId(n),

    /** POST /Users for users `1..count`, `concurrency` at a time (untimed set-up). */
    async createUsers(count, concurrency) {
      await inParallel(count, concurrency, async (i) => {
        const created = expectStatus(await call('POST', '/Users', userBody(i + 1)), 201, `${name} create user`);
        ids.set(i + 1, created.json.id);
      });
    },

    /** GET /Users?filter=…; `expected` (when given) is the totalResults the answer must carry. */
    async list(filter, expected) {
      const res = expectStatus(await call('GET', `/Users?filter=${encodeURIComponent(filter)}`), 200, `${name} list`);
      if (expected !== undefined && res.json.totalResults !== expected)
        throw new Error(`${name} list ${filter}: totalResults ${res.json.totalResults}, expected ${expected}`);
      return res.json;
    },

    /** GET /Users?filter=userName eq "<user n>" (must find exactly that user). */
    async findByUserName(n) {
      const page = await side.list(`userName eq "${userTokens(n).userName}"`, 1);
      if (page.Resources[0].id !== side.userId(n)) throw new Error(`${name} userName eq: another user answered`);
    },

    /** PATCH /Users/{id}: replace displayName (Entra's attribute update), 200 with the resource. */
    async renameUser(n, round) {
      const body = {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: 'replace', path: 'displayName', value: `User ${n} (round ${round})` }],
      };
      const res = expectStatus(await call('PATCH', `/Users/${side.userId(n)}`, body), 200, `${name} user patch`);
      if (res.json.displayName !== body.Operations[0].value) throw new Error(`${name} user patch: not applied`);
    },

    /** POST /Groups with no members; resolves with its id. */
    async createGroup(displayName) {
      const body = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName, members: [] };
      return expectStatus(await call('POST', '/Groups', body), 201, `${name} create group`).json.id;
    },

    /** PATCH /Groups/{id} adding the users `ns` (Okta's shape); 204 or 200. */
    async addMembers(groupId, ns) {
      const body = {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: 'add', path: 'members', value: ns.map((n) => ({ value: side.userId(n) })) }],
      };
      return patchGroup(groupId, body, 'add');
    },

    /** PATCH /Groups/{id} removing user `n` by path filter (Okta's shape); 204 or 200. */
    async removeMember(groupId, n) {
      const body = {
        schemas: [PATCH_SCHEMA],
        Operations: [{ op: 'remove', path: `members[value eq "${side.userId(n)}"]` }],
      };
      return patchGroup(groupId, body, 'remove');
    },

    /** GET /Groups/{id}: its member ids. */
    async memberIds(groupId) {
      const res = expectStatus(await call('GET', `/Groups/${groupId}`), 200, `${name} get group`);
      return (res.json.members ?? []).map((member) => member.value);
    },
  };

  // A 409 (Better Auth: "The SCIM Group changed concurrently; retry the request") is retried at
  // once, as its detail asks, up to CONFLICT_RETRIES times; the retries count in `side.conflicts`
  // and their time in the PATCH's latency (the time until the change is applied).
  async function patchGroup(groupId, body, what) {
    for (let attempt = 0; ; attempt++) {
      const res = await call('PATCH', `/Groups/${groupId}`, body);
      if (res.status === 409 && attempt < CONFLICT_RETRIES) {
        side.conflicts += 1;
        continue;
      }
      if (res.status !== 204 && res.status !== 200)
        throw new Error(`${name} group ${what}: expected 204 or 200, got ${res.status} ${res.text}`);
      return res.status;
    }
  }

  return side;
}
