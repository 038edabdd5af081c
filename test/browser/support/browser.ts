import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type CDPSession,
  type Page,
  type Response,
} from 'playwright-core';

/** A credential as CDP's `WebAuthn.getCredentials` returns it (private key included). */
export type VirtualCredential = Awaited<ReturnType<VirtualAuthenticator['credentials']>>[number];

/** Where journey screenshots go (gitignored; CI keeps them as artifacts). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test', 'browser', 'screenshots');

/** Headless Chromium from the system package (`/usr/bin/chromium`), quiet and offline. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A CDP virtual authenticator attached to one page (identity-model §11.3): CTAP 2.1, internal
 * transport, resident keys, user verification on, presence simulated automatically.
 */
export class VirtualAuthenticator {
  private constructor(
    private readonly cdp: CDPSession,
    readonly authenticatorId: string,
  ) {}

  static async attach(page: Page): Promise<VirtualAuthenticator> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        ctap2Version: 'ctap2_1',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return new VirtualAuthenticator(cdp, authenticatorId);
  }

  /** Whether the next ceremonies succeed user verification (biometric/PIN in a real authenticator). */
  async setUserVerified(isUserVerified: boolean): Promise<void> {
    await this.cdp.send('WebAuthn.setUserVerified', { authenticatorId: this.authenticatorId, isUserVerified });
  }

  /** The credentials it holds, with their private keys (so a test can move one to another "device"). */
  async credentials() {
    return (await this.cdp.send('WebAuthn.getCredentials', { authenticatorId: this.authenticatorId })).credentials;
  }

  async addCredential(credential: VirtualCredential): Promise<void> {
    await this.cdp.send('WebAuthn.addCredential', { authenticatorId: this.authenticatorId, credential });
  }

  async removeCredential(credentialId: string): Promise<void> {
    await this.cdp.send('WebAuthn.removeCredential', { authenticatorId: this.authenticatorId, credentialId });
  }
}

/** One "device": its own cookie jar and sessionStorage, one page, one authenticator. */
export interface BrowserDevice {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly authenticator: VirtualAuthenticator;
  /** Uncaught page errors and CSP violations seen so far. */
  readonly problems: string[];
  close(): Promise<void>;
}

/** Opens a new context on `origin` with a virtual authenticator on its page. */
export async function openDevice(browser: Browser, origin: string): Promise<BrowserDevice> {
  const context = await browser.newContext({ baseURL: origin, viewport: DESKTOP_VIEWPORT });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) {
      problems.push(`csp: ${message.text()}`);
    }
  });
  const authenticator = await VirtualAuthenticator.attach(page);
  return { context, page, authenticator, problems, close: () => context.close() };
}

/**
 * Full-page screenshot into {@link SCREENSHOT_DIR}, then the page brought to front again: a
 * full-page capture resizes the viewport for a moment, and Chromium answers a WebAuthn call from
 * a document without focus with `NotAllowedError` (a journey usually clicks right after).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  await page.bringToFront();
}

/** The viewport every device opens with (desktop); journeys switch to {@link PHONE_VIEWPORT} and back. */
export const DESKTOP_VIEWPORT = { width: 1100, height: 900 };
/** A phone (390 px wide, as an iPhone 12–15). */
export const PHONE_VIEWPORT = { width: 390, height: 844 };

/** Checks nothing on the page is wider than the viewport (the 390 px phone layout). */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const widths = await page.evaluate(() => {
    const doc = (globalThis as any).document;
    const viewport = doc.documentElement.clientWidth as number;
    // The innermost elements reaching past the right edge, to name what overflows.
    const wide = [...doc.querySelectorAll('body *')]
      .filter((element: any) => element.getBoundingClientRect().right > viewport + 0.5)
      .filter((element: any) => element.closest('.table-wrap') === null)
      .slice(-5)
      .map((element: any) => `${element.tagName.toLowerCase()}#${element.id}.${[...element.classList].join('.')}`);
    return { scroll: doc.documentElement.scrollWidth as number, viewport, wide };
  });
  expect({ scroll: widths.scroll, wide: widths.wide }).toEqual({
    scroll: widths.viewport,
    wide: [],
  });
}

/** Reads one `sessionStorage` entry of the page's origin. */
export function sessionStorageItem(page: Page, key: string): Promise<string | null> {
  return page.evaluate((name) => (globalThis as any).sessionStorage.getItem(name) as string | null, key);
}

/** Everything the page keeps in `sessionStorage` and `localStorage`, serialised. */
export function storedPageState(page: Page): Promise<string> {
  return page.evaluate(() =>
    JSON.stringify({ ...(globalThis as any).sessionStorage, ...(globalThis as any).localStorage }),
  );
}

/** Checks a page answer: 200, no-store, a strict CSP, nosniff, no-referrer, no inline script, one status region. */
export async function expectHardenedPage(page: Page, response: Response | null): Promise<void> {
  expect(response?.status()).toBe(200);
  const headers = response!.headers();
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).toContain("default-src 'none'");
  expect(headers['content-security-policy']).not.toContain('unsafe');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(await page.locator('script:not([src])').count()).toBe(0);
  expect(await page.getByRole('status').count()).toBe(1);
}

/** Opens each path on the page and checks it answers 200 with HTML (the path named in a failure). */
export async function expectServedAsHtml(page: Page, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const response = await page.goto(path);
    expect([path, response?.status(), response?.headers()['content-type']]).toEqual([
      path,
      200,
      'text/html; charset=utf-8',
    ]);
  }
}

/**
 * Holds each request the page sends to a path ending in `path` while `read` runs, then lets it
 * through: `value()` is what the last read returned (`undefined` before any), `stop()` ends the hold.
 */
export async function readWhileInFlight<T>(
  page: Page,
  path: string,
  read: () => Promise<T>,
): Promise<{ value(): T | undefined; stop(): Promise<void> }> {
  const pattern = `**${path}`;
  let value: T | undefined;
  await page.route(pattern, async (route) => {
    value = await read();
    await route.continue();
  });
  return { value: () => value, stop: () => page.unroute(pattern) };
}
