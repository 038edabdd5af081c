import { describe, expect, it } from '@jest/globals';
import { parseScimGroupFilter, parseScimUserFilter } from '@tessera/identity';
import {
  scimGroupFilterSql,
  scimGroupOrderSql,
  scimUserFilterSql,
  scimUserOrderSql,
} from './identity-scim-filter.sql.js';

const ID = '0190f1e2-83e4-7a21-9f47-b1a4b6a5cc38';
const EMAILS =
  'tessera_identity.scim_user_emails u_e where u_e.scim_user_id = u.id and u_e.organization_id = u.organization_id and u_e.provider = u.provider';
const user = (text: string) => scimUserFilterSql(parseScimUserFilter(text), 'u');

describe('scimUserFilterSql', () => {
  it.each<[string, string, unknown[]]>([
    ['userName eq "BJensen"', '(lower(u.user_name) = lower(?))', ['BJensen']],
    ['userName ne "x"', '(lower(u.user_name) <> lower(?))', ['x']],
    ['externalId eq "AbC"', '(u.external_id is not null and u.external_id = ?)', ['AbC']],
    ['externalId ne "AbC"', '(u.external_id is null or u.external_id <> ?)', ['AbC']],
    ['title gt "m"', '(u.title is not null and lower(u.title) collate "C" > lower(?) collate "C")', ['m']],
    ['userName sw "a%_\\\\"', "(lower(u.user_name) like lower(?) escape '\\')", ['a\\%\\_\\\\%']],
    [
      'displayName co "50%"',
      "(u.display_name is not null and lower(u.display_name) like lower(?) escape '\\')",
      ['%50\\%%'],
    ],
    ['nickName ew "_x"', "(u.nick_name is not null and lower(u.nick_name) like lower(?) escape '\\')", ['%\\_x']],
    ['title pr', "(u.title is not null and u.title <> '')", []],
    ['title eq null', "(not (u.title is not null and u.title <> ''))", []],
    ['title ne null', "(u.title is not null and u.title <> '')", []],
    ['active eq "True"', '(u.active = ?)', [true]],
    ['meta.created ge "2020-01-01T00:00:00Z"', '(u.created_at >= ?)', [new Date('2020-01-01T00:00:00Z')]],
    ['meta.lastModified lt 2020-01-01', '(u.updated_at < ?)', [new Date('2020-01-01T00:00:00Z')]],
    [`id eq "${ID}"`, '(u.id = ?)', [ID]],
    [`id eq "${ID.toUpperCase()}"`, '(false)', []],
    ['id eq "not-an-id"', '(false)', []],
    ['id ne "not-an-id"', '(true)', []],
    ['id sw "0190"', "(cast(u.id as text) like ? escape '\\')", ['0190%']],
    ['phoneNumbers ne "x"', 'true', []],
    ['emails co "@x"', `exists (select 1 from ${EMAILS} and (lower(u_e.value) like lower(?) escape '\\'))`, ['%@x%']],
    [
      'emails.type ne "work"',
      `((not exists (select 1 from ${EMAILS} and true)) or exists (select 1 from ${EMAILS} and (u_e.type is null or lower(u_e.type) <> lower(?))))`,
      ['work'],
    ],
    ['emails.type eq null', `(not exists (select 1 from ${EMAILS} and (u_e.type is not null and u_e.type <> '')))`, []],
    ['emails pr', `exists (select 1 from ${EMAILS} and (u_e.value <> ''))`, []],
    [
      'emails[type eq "work"].value eq "A@x"',
      `exists (select 1 from ${EMAILS} and ((u_e.type is not null and lower(u_e.type) = lower(?)) and (lower(u_e.value) = lower(?))))`,
      ['work', 'A@x'],
    ],
    [
      'not (emails[primary eq true]) or userName eq "a" and title pr',
      `((not exists (select 1 from ${EMAILS} and (u_e.is_primary = ?))) or ((lower(u.user_name) = lower(?)) and (u.title is not null and u.title <> '')))`,
      [true, 'a'],
    ],
  ])('translates %s', (text, sql, params) => {
    expect(user(text)).toEqual({ sql, params });
  });

  it('keeps every value out of the SQL text', () => {
    const hostile = `x'); drop table users; -- \\ % _ ? $1 "`;
    const { sql, params } = scimUserFilterSql(
      { kind: 'or', filters: [{ kind: 'compare', attribute: 'displayName', op: 'eq', value: hostile }] },
      'u',
    );
    expect(sql).not.toContain('drop');
    expect(sql.split('?').length - 1).toBe(params.length);
    expect(params).toEqual([hostile]);
  });

  it('refuses an alias that is not a plain identifier', () => {
    expect(() => scimUserFilterSql({ kind: 'constant', value: true }, 'u; drop')).toThrow();
    expect(() => scimUserOrderSql('userName', 'ascending', 'u"')).toThrow();
  });
});

describe('scimGroupFilterSql', () => {
  const MEMBERS =
    'tessera_identity.scim_group_members g_m where g_m.group_id = g.id and g_m.organization_id = g.organization_id and g_m.provider = g.provider';
  it.each<[string, string, unknown[]]>([
    ['displayName eq "Admins"', '(lower(g.display_name) = lower(?))', ['Admins']],
    [`members eq "${ID.toUpperCase()}"`, `exists (select 1 from ${MEMBERS} and (g_m.scim_user_id = ?))`, [ID]],
    [`members[value eq "${ID}"]`, `exists (select 1 from ${MEMBERS} and (g_m.scim_user_id = ?))`, [ID]],
    ['members eq "nobody"', `exists (select 1 from ${MEMBERS} and (false))`, []],
    ['members pr', `exists (select 1 from ${MEMBERS} and (true))`, []],
  ])('translates %s', (text, sql, params) => {
    expect(scimGroupFilterSql(parseScimGroupFilter(text), 'g')).toEqual({ sql, params });
  });
});

describe('the ORDER BY of a sort key', () => {
  it.each<[string, string]>([
    ['userName', 'lower(u.user_name) collate "C" asc nulls last, u.id asc'],
    ['externalId', 'u.external_id collate "C" asc nulls last, u.id asc'],
    ['meta.created', 'u.created_at asc nulls last, u.id asc'],
    ['id', 'u.id asc nulls last'],
  ])('orders users by %s', (key, sql) => {
    expect(scimUserOrderSql(key as 'userName', 'ascending', 'u')).toBe(sql);
  });

  it('puts absent values first when descending', () => {
    expect(scimUserOrderSql('name.familyName', 'descending', 'u')).toBe(
      'lower(u.name_family_name) collate "C" desc nulls first, u.id asc',
    );
    expect(scimGroupOrderSql('displayName', 'descending', 'g')).toBe(
      'lower(g.display_name) collate "C" desc nulls first, g.id asc',
    );
  });
});
