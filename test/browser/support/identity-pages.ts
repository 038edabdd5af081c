import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { Locator, Page, Response } from 'playwright-core';

/** `sessionStorage` key of the CSRF token (identity-http §2.2). */
export const CSRF_KEY = 'tessera.identity.csrf.v1';

/** Identity API paths the journeys watch. */
export const API = {
  bootstrap: '/identity/v1/bootstrap',
  enroll: '/identity/v1/invitations/enroll',
  invitationPreview: '/identity/v1/invitations/preview',
  registrationStart: '/identity/v1/passkeys/registration/start',
  registrationFinish: '/identity/v1/passkeys/registration/finish',
  authenticationStart: '/identity/v1/passkeys/authentication/start',
  authenticationFinish: '/identity/v1/passkeys/authentication/finish',
  stepUpStart: '/identity/v1/passkeys/step-up/start',
  stepUpFinish: '/identity/v1/passkeys/step-up/finish',
  recoveryReplace: '/identity/v1/recovery/codes/replace',
  recoveryUse: '/identity/v1/recovery/codes/use',
  clientConfig: '/identity/v1/client-config',
} as const;

/** The next response of `method path` on this page. */
export function waitForApi(page: Page, method: string, path: string): Promise<Response> {
  return page.waitForResponse(
    (response) => response.request().method() === method && new URL(response.url()).pathname === path,
  );
}

/** Collects the page's responses to `method path` until `stop()`. */
export function collectResponses(page: Page, method: string, path: string): { responses: Response[]; stop(): void } {
  const responses: Response[] = [];
  const collect = (response: Response) => {
    if (response.request().method() === method && new URL(response.url()).pathname === path) responses.push(response);
  };
  page.on('response', collect);
  return { responses, stop: () => page.off('response', collect) };
}

/**
 * Waits until `success` is visible, failing fast with the page's own error text (message and
 * request ID) when the alert region reports a failure instead.
 */
export async function expectSuccess(page: Page, success: Locator): Promise<void> {
  const failure = page.locator('#error-message');
  const outcome = await Promise.race([
    success.waitFor().then(
      () => 'ok',
      () => 'timeout',
    ),
    failure.waitFor().then(
      () => 'error',
      () => 'timeout',
    ),
  ]);
  if (outcome === 'ok') return;
  if (outcome === 'error') {
    const requestId = await page
      .locator('#error-request-id')
      .textContent({ timeout: 1000 })
      .catch(() => null);
    throw new Error(`The page reported: ${await failure.textContent()} (request ID ${requestId ?? 'none'})`);
  }
  throw new Error(`Neither success nor an error appeared on ${page.url()}`);
}

/** {@link expectSuccess} for the status region saying `text`. */
export function expectStatus(page: Page, text: string): Promise<void> {
  return expectSuccess(page, page.getByRole('status').filter({ hasText: text }));
}

/**
 * `response`, unless the page shows an error first: then a failure carrying the page's message
 * and request ID (a failed WebAuthn call never sends the request a test waits for).
 */
export async function responseOrPageError(page: Page, response: Promise<Response>): Promise<Response> {
  const failed = pageError(page).then(
    ({ message, requestId }) => {
      throw new Error(`The page reported: ${message} (request ID ${requestId ?? 'none'})`);
    },
    () => new Promise<never>(() => undefined),
  );
  return Promise.race([response, failed]);
}

/** The alert region's message and request ID once it shows an error. */
export async function pageError(page: Page): Promise<{ message: string; requestId: string | null }> {
  await page.locator('#error-message').waitFor();
  const message = (await page.locator('#error-message').textContent()) ?? '';
  const id = page.locator('#error-request-id');
  return { message, requestId: (await id.count()) === 0 ? null : await id.textContent() };
}

/** The account view's `Account` heading (visible only when signed in). */
export function accountHeading(page: Page): Locator {
  return page.getByRole('heading', { name: 'Account', exact: true });
}

/** The sign-in button of `/identity` (visible only when signed out). */
export function signInButton(page: Page): Locator {
  return page.getByRole('button', { name: 'Sign in with a passkey' });
}

/** Reloads the page and waits for the sign-in button: its session has ended. */
export async function expectSignedOutOnReload(page: Page): Promise<void> {
  await page.reload();
  await expectSuccess(page, signInButton(page));
}

/** Clicks a sign-out `button` and waits for the sign-in button. */
export async function signOutWith(page: Page, button: Locator): Promise<void> {
  await button.click();
  await expectSuccess(page, signInButton(page));
}

/** Username-free sign-in on `/identity`; returns the start options and the `SessionCreated` body. */
export async function signIn(page: Page): Promise<{ options: any; session: any }> {
  await page.goto('/identity');
  await expectSuccess(page, signInButton(page));
  const started = waitForApi(page, 'POST', API.authenticationStart);
  const finished = waitForApi(page, 'POST', API.authenticationFinish);
  await signInButton(page).click();
  const start = await started;
  expect(start.status()).toBe(200);
  const finish = await finished;
  expect(finish.status()).toBe(200);
  await expectSuccess(page, accountHeading(page));
  return { options: ((await start.json()) as { publicKey: unknown }).publicKey, session: await finish.json() };
}

/** The recovery codes currently shown in `#codes-list`, after checking the block is visible. */
export async function shownRecoveryCodes(page: Page): Promise<string[]> {
  await expectSuccess(page, page.getByRole('heading', { name: 'Save your recovery codes' }));
  return page.locator('#codes-list li').allTextContents();
}

/** A recovery code as shown (issue 17): 26 Crockford base32 characters in groups of 5-5-5-5-6. */
export const SHOWN_RECOVERY_CODE =
  /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{6}$/;

/** Checks a set of recovery codes as shown: ten readable codes, all distinct. */
export function expectTenDistinctCodes(codes: readonly string[]): void {
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const code of codes) expect(code).toMatch(SHOWN_RECOVERY_CODE);
}

/** How a person might type a shown code: lower case, groups split by spaces, O for 0 and l for 1. */
export function typedByHand(code: string): string {
  return code.replaceAll('-', ' ').replaceAll('0', 'O').replaceAll('1', 'l').toLowerCase();
}

/** A fresh canonical UUIDv7 (identity-http §1) naming nothing that exists. */
export function uuidV7(): string {
  const bytes = randomBytes(16);
  let ms = BigInt(Date.now());
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Input of {@link bootstrapOwner}: the server's secret and the first owner and organization. */
export interface OwnerBootstrap {
  secret: string;
  displayName: string;
  email: string;
  organizationName: string;
  organizationSlug: string;
  passkeyName: string;
}

/** The first owner and organization both journeys bootstrap (with the demo's secret). */
export const FIRST_OWNER: Omit<OwnerBootstrap, 'secret'> = {
  displayName: 'Ada Lovelace',
  email: 'ada@example.com',
  organizationName: 'Analytical Engines',
  organizationSlug: 'analytical-engines',
  passkeyName: 'Ada’s laptop',
};

/** Opens `/identity/bootstrap` and fills its form, without submitting it. */
export async function fillBootstrapForm(page: Page, input: OwnerBootstrap): Promise<void> {
  await page.goto('/identity/bootstrap');
  await page.getByRole('heading', { name: 'Create the first owner' }).waitFor();
  await page.getByLabel('Bootstrap secret', { exact: true }).fill(input.secret);
  await page.getByLabel('Your name', { exact: true }).fill(input.displayName);
  await page.getByLabel('Email', { exact: true }).fill(input.email);
  await page.getByLabel('Organization name', { exact: true }).fill(input.organizationName);
  await page.getByLabel('Organization slug', { exact: true }).fill(input.organizationSlug);
  await page.getByLabel('Passkey name', { exact: true }).fill(input.passkeyName);
}

/**
 * Fills `/identity/bootstrap` and creates the owner's passkey on the page's authenticator; returns
 * the `BootstrapCreated` IDs and the ten recovery codes the page shows once.
 */
export async function bootstrapOwner(
  page: Page,
  input: OwnerBootstrap,
): Promise<{ userId: string; organizationId: string; codes: string[] }> {
  await fillBootstrapForm(page, input);
  const bootstrapped = waitForApi(page, 'POST', API.bootstrap);
  await page.getByRole('button', { name: 'Create owner and passkey' }).click();
  const response = await bootstrapped;
  expect(response.status()).toBe(201);
  const created = (await response.json()) as { userId: string; organization: { id: string } };
  const codes = await shownRecoveryCodes(page);
  expect(codes).toHaveLength(10);
  return { userId: created.userId, organizationId: created.organization.id, codes };
}

/**
 * Opens an enrolment link (`…/identity/enroll#token=…`) and checks the token never left the
 * fragment: the request went to `origin/identity/enroll` as such, and the page cleared the
 * fragment from its address.
 */
export async function openEnrolmentLink(page: Page, link: string, origin: string): Promise<void> {
  const navigation = page.waitForRequest((request) => new URL(request.url()).pathname === '/identity/enroll');
  await page.goto(link);
  expect((await navigation).url()).toBe(`${origin}/identity/enroll`);
  await page.waitForFunction(() => (globalThis as any).location.hash === '');
  expect(page.url()).toBe(`${origin}/identity/enroll`);
}

/** The `EnrollmentCreated` body of `POST /identity/v1/invitations/enroll`, as far as the journeys read it. */
export interface EnrollmentCreated {
  userId: string;
  assurance: string;
  organizationId: string;
  membership: { role: string };
}

/**
 * Opens an enrolment link (`…/identity/enroll#token=…`), joins with `displayName`, creates the
 * passkey on the page's authenticator; returns the `EnrollmentCreated` body and the ten codes shown.
 */
export async function enrollWithLink(
  page: Page,
  link: string,
  displayName: string,
  invitedText?: string,
): Promise<{ enrollment: EnrollmentCreated; codes: string[] }> {
  const previewed = waitForApi(page, 'POST', API.invitationPreview);
  await page.goto(link);
  expect((await previewed).status()).toBe(200);
  if (invitedText !== undefined)
    await expectSuccess(page, page.locator('#invitation-state').filter({ hasText: invitedText }));
  await page.getByLabel('Your name', { exact: true }).fill(displayName);
  const enrolled = waitForApi(page, 'POST', API.enroll);
  await page.getByRole('button', { name: 'Join and create a passkey' }).click();
  const response = await enrolled;
  expect(response.status()).toBe(201);
  const enrollment = (await response.json()) as EnrollmentCreated;
  return { enrollment, codes: await shownRecoveryCodes(page) };
}

/** POSTs the malformed JSON body `{` to each path from the page (same origin, its cookies); returns each answer. */
export function postMalformedJson(
  page: Page,
  paths: readonly string[],
): Promise<{ path: string; status: number; cacheControl: string | null }[]> {
  return page.evaluate(async (paths) => {
    const results: { path: string; status: number; cacheControl: string | null }[] = [];
    for (const path of paths) {
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      });
      results.push({ path, status: response.status, cacheControl: response.headers.get('cache-control') });
    }
    return results;
  }, paths as string[]);
}
