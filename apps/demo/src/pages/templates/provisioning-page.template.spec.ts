import { describe, expect, it } from '@jest/globals';
import { ORGANIZATION_PAGE } from './organization-page.template.js';
import { PROVISIONING_PAGE } from './provisioning-page.template.js';

const BODY = PROVISIONING_PAGE.body;

/** The ids of every form control (`input`, `select`, `textarea`) in `html`. */
function controlIds(html: string): string[] {
  return [...html.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[1]!);
}

describe('the provisioning (SCIM) page', () => {
  it('has its own script, no inline script, style or event handler, and a label for every control', () => {
    expect(PROVISIONING_PAGE.script).toBe('provisioning.page.js');
    expect(PROVISIONING_PAGE.title).toBe('Provisioning (SCIM)');
    expect(BODY).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    const ids = controlIds(BODY);
    expect(ids).toEqual(['scim-base-url', 'scim-secret-value', 'scim-provider-name']);
    for (const id of ids) expect(BODY).toContain(`<label for="${id}">`);
  });

  it('keeps every id unique, and hides every state until the script decides', () => {
    const ids = [...BODY.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ['provisioning', 'provisioning-unavailable', 'provisioning-disabled', 'signed-out'])
      expect(BODY).toMatch(new RegExp(`<(?:section|p) id="${id}"[^>]*hidden>`));
    for (const id of ['scim-revoke', 'scim-secret', 'scim-empty', 'scim-events-empty', 'scim-events-partial'])
      expect(BODY).toMatch(new RegExp(`id="${id}"[^>]*hidden>`));
  });

  it('offers the providers okta, entra and generic, and says the token is shown once', () => {
    const options = [...BODY.matchAll(/<option value="([^"]+)">/g)].map((match) => match[1]);
    expect(options).toEqual(['okta', 'entra', 'generic']);
    expect(BODY).toContain('<strong>Shown only this once.</strong>');
    expect(BODY).toContain('you will not see it again');
    expect(BODY).toContain('keeps working for 10 more minutes');
  });
});

describe('the organization page', () => {
  it('links owners and admins to the provisioning page', () => {
    expect(ORGANIZATION_PAGE.body).toMatch(
      /<section class="panel manager-only" aria-labelledby="provisioning-link-heading">\n<h3 id="provisioning-link-heading">Provisioning \(SCIM\)<\/h3>/,
    );
    expect(ORGANIZATION_PAGE.body).toContain('<a id="provisioning-link"');
    const ids = [...ORGANIZATION_PAGE.body.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
