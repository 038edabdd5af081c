import { describe, expect, it } from '@jest/globals';
import { devicePage } from './device-page.template.js';

describe('devicePage', () => {
  it('carries the role map in a data attribute that decodes back to it, with no inline script', () => {
    const roles = { owner: ['identity.profile', 'it\'s<"&>'], viewer: [] };
    const page = devicePage(roles);
    const attribute = /data-role-capabilities="([^"]*)"/.exec(page.body)?.[1];
    expect(attribute).toBeDefined();
    expect(attribute).not.toMatch(/[<>"']/);
    const decoded = attribute!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    expect(JSON.parse(decoded)).toEqual(roles);
    expect(page.body).not.toMatch(/<script|<style|\son[a-z]+=/i);
    expect(page.script).toBe('device.page.js');
  });

  it('offers no organization by default and labels every control', () => {
    const { body } = devicePage({});
    expect(body).toContain('<option value="">Choose an organization…</option>');
    expect(body).not.toContain('selected');
    for (const id of ['user-code', 'organization']) expect(body).toContain(`<label for="${id}">`);
    expect(body).toMatch(/<fieldset id="capabilities"[^>]*>\s*<legend>/);
  });
});
