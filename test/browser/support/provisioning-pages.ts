import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { collectResponses, expectStatus, expectSuccess, waitForApi } from './identity-pages.js';
import { ORGANIZATIONS } from './organization-pages.js';

/** The SCIM media type the test's identity provider sends (RFC 7644 §3.1). */
const SCIM_JSON = 'application/scim+json';

/** One group-to-role rule as typed into the create form. */
export interface RuleInput {
  kind: 'displayName' | 'externalId';
  group: string;
  role: 'admin' | 'publisher' | 'viewer';
}

/** The provisioning page of an organization. */
export function provisioningPagePath(organizationId: string): string {
  return `/identity/organizations/${organizationId}/provisioning`;
}

/** Identity API path of an organization's SCIM connections. */
export function connectionsPath(organizationId: string): string {
  return `${ORGANIZATIONS}/${organizationId}/scim/connections`;
}

/** The row of the connection of `provider` (“Okta”) in the connections table. */
export function connectionRow(page: Page, provider: string): Locator {
  return page.locator('#scim-body tr').filter({ hasText: provider });
}

/** The texts of a connection row's first three cells: provider (with its name), state, rules. */
export async function connectionCells(page: Page, provider: string): Promise<string[]> {
  const row = connectionRow(page, provider);
  await row.waitFor();
  return (await row.locator('th, td').allTextContents()).slice(0, 3).map((text) => text.trim());
}

/**
 * Fills the "Create a connection" form (provider and rules) and submits it; returns every POST to
 * the connections path (a 403 `step_up_required`, then the retry, when the page confirmed with the
 * passkey) once the page announced the new connection.
 */
export async function createConnection(
  page: Page,
  organizationId: string,
  providerName: string,
  rules: readonly RuleInput[],
): Promise<Response[]> {
  const form = page.locator('#create-scim-connection');
  await form.getByLabel('Identity provider', { exact: true }).selectOption(providerName);
  for (const [index, rule] of rules.entries()) {
    await form.getByRole('button', { name: 'Add a rule' }).click();
    const n = index + 1;
    await form.getByLabel(`Match of rule ${n}`, { exact: true }).selectOption(rule.kind);
    await form.getByLabel(`Group of rule ${n}`, { exact: true }).fill(rule.group);
    await form.getByLabel(`Role of rule ${n}`, { exact: true }).selectOption(rule.role);
  }
  const posts = collectResponses(page, 'POST', connectionsPath(organizationId));
  await form.getByRole('button', { name: 'Create connection' }).click();
  await expectStatus(page, 'created. Copy its token below now; you will not see it again.');
  posts.stop();
  return posts.responses;
}

/** The token the page shows once, after checking the block says so. */
export async function shownToken(page: Page): Promise<string> {
  const field = page.getByLabel('Bearer token', { exact: true });
  await expectSuccess(page, field);
  expect(await page.locator('#scim-secret').textContent()).toContain('you will not see it again');
  return field.inputValue();
}

/** Clicks "Rotate token" of `provider`'s connection; returns the statuses of the POSTs to its rotate route. */
export async function rotateConnection(page: Page, path: string, provider: string): Promise<number[]> {
  const answers = collectResponses(page, 'POST', `${path}/rotate`);
  await page.getByRole('button', { name: `Rotate the token of the ${provider} connection` }).click();
  await expectStatus(page, `New token for the ${provider} connection`);
  answers.stop();
  return answers.responses.map((response) => response.status());
}

/** Opens the revoke confirmation of `provider`'s connection and waits for its question. */
export async function askRevoke(page: Page, provider: string): Promise<void> {
  await page.getByRole('button', { name: `Revoke the ${provider} connection` }).click();
  await expectSuccess(page, page.getByRole('heading', { name: `Revoke the ${provider} connection?` }));
}

/** Confirms the open revoke question; returns the DELETE's answer once the page announced it. */
export async function confirmRevoke(page: Page, path: string, provider: string): Promise<Response> {
  const deleted = waitForApi(page, 'DELETE', path);
  await page.getByRole('button', { name: `Yes, revoke the ${provider} connection` }).click();
  const answer = await deleted;
  await expectStatus(page, `The ${provider} connection was revoked`);
  return answer;
}

/** The action and outcome cells of the provisioning events table, top to bottom. */
export async function shownEvents(page: Page): Promise<{ action: string; outcome: string }[]> {
  await page.locator('#scim-events-body tr').first().waitFor();
  return page.locator('#scim-events-body tr').evaluateAll((rows) =>
    rows.map((row) => ({
      action: (row as any).cells[1].textContent as string,
      outcome: (row as any).cells[4].textContent as string,
    })),
  );
}

/** A SCIM call from the test (the identity provider's side) with `token`; answers status and JSON body. */
export async function scimCall(
  origin: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; contentType: string | null; body: Record<string, any> }> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: SCIM_JSON,
      ...(body === undefined ? {} : { 'content-type': SCIM_JSON }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: text === '' ? {} : (JSON.parse(text) as Record<string, any>),
  };
}
