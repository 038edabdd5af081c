import { describe, expect, it } from '@jest/globals';
import { ORGANIZATION_PAGE } from './organization-page.template.js';
import { SIGNATURE_POLICIES, SSO_PANEL } from './sso-panel.template.js';
import { SSO_PAGE } from './sso-page.template.js';

/** The ids of every form control (`input`, `select`, `textarea`) in `html`. */
function controlIds(html: string): string[] {
  return [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[1]!);
}

/** The markup of the element with `id` up to its closing tag (forms do not nest). */
function formMarkup(html: string, id: string): string {
  const start = html.indexOf(`<form id="${id}"`);
  expect(start).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</form>', start));
}

describe('the single sign-on panel of the organization page', () => {
  it('has no inline script, style or event handler, and a label for every control', () => {
    expect(SSO_PANEL).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    const ids = controlIds(SSO_PANEL);
    expect(ids.length).toBeGreaterThanOrEqual(13);
    for (const id of ids) expect(SSO_PANEL).toContain(`<label for="${id}">`);
  });

  it('keeps every id of the organization page unique with the panel in it', () => {
    const ids = [...ORGANIZATION_PAGE.body.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]);
    expect(ORGANIZATION_PAGE.body).toContain(SSO_PANEL);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is for owners and admins only, like the other management panels', () => {
    expect(SSO_PANEL).toMatch(/^<section class="panel manager-only" aria-labelledby="sso-heading">/);
  });

  it('asks OIDC for provider ID, display name, issuer, client ID, optional secret and JIT (off by default)', () => {
    const form = formMarkup(SSO_PANEL, 'add-oidc-provider');
    const names = [...form.matchAll(/\bname="([^"]+)"/g)].map((match) => match[1]);
    expect(names).toEqual(['providerId', 'displayName', 'issuer', 'clientId', 'clientSecret', 'jit']);
    expect(form).toMatch(/<input id="oidc-client-secret" name="clientSecret" type="password" maxlength="512"/);
    expect(form).not.toMatch(/id="oidc-client-secret"[^>]*required/);
    expect(form).toMatch(/<input type="checkbox" id="oidc-jit" name="jit"(?![^>]*checked)/);
    expect(form).toContain('<button type="submit">Add OIDC provider</button>');
  });

  it('asks SAML for metadata XML or entity ID + SSO URL + certificates, the signature policy and JIT', () => {
    const form = formMarkup(SSO_PANEL, 'add-saml-provider');
    const names = [...form.matchAll(/\bname="([^"]+)"/g)].map((match) => match[1]);
    expect(names).toEqual([
      'providerId',
      'displayName',
      'idpMetadataXml',
      'idpEntityId',
      'ssoUrl',
      'certificates',
      'signaturePolicy',
      'jit',
    ]);
    // Neither way of describing the IdP is required by the browser: the script checks one is complete.
    for (const id of ['saml-metadata', 'saml-entity-id', 'saml-sso-url', 'saml-certificates'])
      expect(form).not.toMatch(new RegExp(`id="${id}"[^>]*required`));
    const options = [...form.matchAll(/<option value="([^"]+)">/g)].map((match) => match[1]);
    expect(options).toEqual(['assertion', 'response', 'both', 'assertion_or_response']);
    expect(SIGNATURE_POLICIES[0]!.value).toBe('assertion');
    expect(form).toContain('<button type="submit">Add SAML provider</button>');
  });

  it('checks provider IDs in the browser exactly like the server does (^[a-z0-9][a-z0-9_-]{0,62}$)', () => {
    const pattern = /pattern="([^"]+)"/.exec(formMarkup(SSO_PANEL, 'add-oidc-provider'))![1]!;
    // Browsers compile `pattern` as ^(?:…)$ with the `v` flag.
    const browser = new RegExp(`^(?:${pattern})$`, 'v');
    const server = /^[a-z0-9][a-z0-9_-]{0,62}$/;
    for (const value of [
      'okta',
      'acme-idp',
      'a_b-c',
      '0',
      'x'.repeat(63),
      'Okta',
      '-x',
      '_x',
      'x'.repeat(64),
      'a b',
      'a.b',
    ])
      expect([value, browser.test(value)]).toEqual([value, server.test(value)]);
  });

  it('has the regions the script fills: the table, the empty note, the connection details and the sign-in page link', () => {
    for (const id of ['sso-body', 'sso-table', 'sso-empty', 'sso-details', 'sso-details-urls', 'sso-sign-in-page'])
      expect(SSO_PANEL).toContain(`id="${id}"`);
    expect(SSO_PANEL).toMatch(/<section id="sso-details"[^>]*hidden>/);
    expect(SSO_PANEL).toMatch(/<p id="sso-empty" hidden>/);
  });
});

describe('the organization sign-in page', () => {
  it('has its own script, no inline code, and every state hidden until the script decides', () => {
    expect(SSO_PAGE.script).toBe('sso.page.js');
    expect(SSO_PAGE.title).toBe('Single sign-on');
    expect(SSO_PAGE.body).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    for (const id of ['sso-options', 'sso-none', 'sso-unknown', 'sso-signed-in'])
      expect(SSO_PAGE.body).toMatch(new RegExp(`<(?:section|p) id="${id}"[^>]*hidden>`));
    expect(SSO_PAGE.body).toContain('<ul id="sso-providers" class="sign-in-options"></ul>');
  });

  it('always offers the passkey sign-in as well', () => {
    expect(SSO_PAGE.body).toContain('<a href="/identity">Sign in with a passkey</a>');
  });
});
