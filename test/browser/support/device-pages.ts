import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';
import { expectSuccess, waitForApi } from './identity-pages.js';

/** Identity routes the device page calls (identity-http §4.1 rows 35–37). */
export const DEVICE_API = {
  inspect: '/identity/v1/device',
  approve: '/identity/v1/device/approve',
  deny: '/identity/v1/device/deny',
} as const;

/** The code field of `/device` (visible only to a signed-in user). */
export function codeField(page: Page): Locator {
  return page.getByLabel('Code', { exact: true });
}

/** The confirmation screen's heading. */
export function confirmHeading(page: Page): Locator {
  return page.getByRole('heading', { name: 'Confirm the device sign-in' });
}

/** The result screen's heading (`Device approved`, `Device sign-in denied`). */
export function resultHeading(page: Page, name: string): Locator {
  return page.getByRole('heading', { name, exact: true });
}

/** The checkbox of one requested capability, by its plain-words sentence. */
export function capabilityBox(page: Page, sentence: string): Locator {
  return page.getByRole('checkbox', { name: sentence });
}

/** The organization chooser of the confirmation screen. */
export function organizationSelect(page: Page): Locator {
  return page.getByLabel('Organization', { exact: true });
}

/** The lone `X-Request-ID` a response carried. */
export function requestIdOf(response: Response): string | undefined {
  return response.headers()['x-request-id'];
}

/**
 * On `/device` as a signed-in user, types `typed` as a person would and continues; returns the
 * inspect call (route 35) the page made.
 */
export async function enterCode(page: Page, typed: string): Promise<Response> {
  await expectSuccess(page, codeField(page));
  // Focus management: the code field is ready to type into.
  expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('user-code');
  await codeField(page).pressSequentially(typed);
  const inspected = waitForApi(page, 'POST', DEVICE_API.inspect);
  await page.getByRole('button', { name: 'Continue' }).click();
  return inspected;
}

/** The confirmation facts as shown: application, code and the requested-at time. */
export async function shownFacts(page: Page): Promise<{ client: string; code: string; requestedAt: string | null }> {
  await expectSuccess(page, confirmHeading(page));
  return {
    client: (await page.locator('#grant-client').textContent()) ?? '',
    code: (await page.locator('#grant-code').textContent()) ?? '',
    requestedAt: await page.locator('#grant-requested time').getAttribute('datetime'),
  };
}

/** Chooses an organization (by ID, the option's value) on the confirmation screen. */
export async function chooseOrganization(page: Page, organizationId: string): Promise<void> {
  await organizationSelect(page).selectOption(organizationId);
}

/** Clicks `button` on the confirmation screen and waits for the route it calls and the result screen. */
export async function decide(
  page: Page,
  button: 'Approve' | 'Deny',
  result: string,
): Promise<{ response: Response; body: unknown }> {
  const path = button === 'Approve' ? DEVICE_API.approve : DEVICE_API.deny;
  const called = waitForApi(page, 'POST', path);
  await page.getByRole('button', { name: button, exact: true }).click();
  const response = await called;
  await expectSuccess(page, resultHeading(page, result));
  expect(await page.locator('#result-step').innerText()).toContain('You can return to your terminal.');
  return { response, body: response.request().postDataJSON() as unknown };
}
