import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPrivateKey } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { BrowserDevice, VirtualCredential } from './support/browser.js';
import { BrowserHarness } from './support/harness.js';
import {
  addPasskeyAsideFirst,
  expectRegistrationOptionsPerContract,
  handOverNewPasskey,
} from './support/identity-account.js';
import { API, bootstrapOwner, FIRST_OWNER, signIn, waitForApi } from './support/identity-pages.js';

/** Chromium's console warning for options without both ES256 and RS256 (content/browser/webauth). */
const ALGORITHM_WARNING = /pubKeyCredParams is missing at least one of the default algorithm identifiers/;

/** The key type of a virtual credential's PKCS#8 private key: `ec`, `rsa` or `ed25519`. */
const keyTypeOf = (credential: VirtualCredential) =>
  createPrivateKey({ key: Buffer.from(credential.privateKey, 'base64'), format: 'der', type: 'pkcs8' })
    .asymmetricKeyType;

/** Every console warning the page logs from now on. */
function warningsOf(page: Page): string[] {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  return warnings;
}

/**
 * Rewrites the next registration options the page receives to offer `alg` alone, as a relying
 * party with only that algorithm would: Chromium's virtual authenticator then creates that key.
 */
async function offerOnly(page: Page, alg: number): Promise<() => Promise<void>> {
  const pattern = `**${API.registrationStart}`;
  await page.route(pattern, async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { publicKey: { pubKeyCredParams: unknown[] } };
    body.publicKey.pubKeyCredParams = [{ type: 'public-key', alg }];
    await route.fulfill({ response, json: body });
  });
  return () => page.unroute(pattern);
}

/**
 * Issue 17 item 5 in headless Chromium (CDP virtual authenticator): the default options register
 * without Chromium's algorithm warning, and RS256 (Windows Hello) and EdDSA passkeys created by
 * Chromium itself register and sign in against the server.
 */
describe('passkeys of every algorithm in Chromium', () => {
  let harness: BrowserHarness;
  let owner: BrowserDevice;
  let warnings: string[];
  let ownerUserId = '';

  beforeAll(async () => {
    harness = await BrowserHarness.start();
    owner = await harness.device();
    warnings = warningsOf(owner.page);
  });

  afterAll(() => harness?.stop());

  it('registers the owner from the default options (-7, -8, -257) with an ES256 key and no algorithm warning', async () => {
    const { page, authenticator } = owner;
    const started = waitForApi(page, 'POST', API.registrationStart);
    const created = await bootstrapOwner(page, { secret: harness.demo.bootstrapSecret, ...FIRST_OWNER });
    ownerUserId = created.userId;
    expectRegistrationOptionsPerContract(((await (await started).json()) as { publicKey: unknown }).publicKey);
    const [credential] = await authenticator.credentials();
    expect(keyTypeOf(credential!)).toBe('ec');
    expect(warnings.filter((text) => ALGORITHM_WARNING.test(text))).toEqual([]);
    const { session } = await signIn(page);
    expect(session.userId).toBe(ownerUserId);
  });

  it.each([
    ['RS256 (a Windows Hello TPM key)', -257, 'rsa', 'Windows Hello'],
    ['EdDSA (an Ed25519 security key)', -8, 'ed25519', 'Ed25519 key'],
  ])(
    'registers an %s passkey that Chromium creates, and signs in with it on another device',
    async (_name, alg, keyType, passkeyName) => {
      const { page, authenticator } = owner;
      const before = warnings.length;
      const restore = await offerOnly(page, alg);
      const { setAside, finish } = await addPasskeyAsideFirst(page, authenticator, passkeyName);
      await restore();
      expect(finish.status()).toBe(200);
      expect(((await finish.json()) as { passkey: { name: string; state: string } }).passkey).toMatchObject({
        name: passkeyName,
        state: 'active',
      });
      // The rewritten options lack ES256 (and RS256): Chromium warns, which shows the listener hears it.
      expect(warnings.slice(before).filter((text) => ALGORITHM_WARNING.test(text))).toHaveLength(1);

      const device = await harness.device();
      await handOverNewPasskey(authenticator, device.authenticator, setAside);
      const [moved] = await device.authenticator.credentials();
      expect(keyTypeOf(moved!)).toBe(keyType);
      const { session } = await signIn(device.page);
      expect(session).toMatchObject({ userId: ownerUserId, assurance: 'passkey' });
      const [after] = await device.authenticator.credentials();
      expect(after!.signCount).toBeGreaterThan(moved!.signCount);
    },
  );

  it('adds a passkey from the default options again without the warning, and saw no page error or CSP violation', async () => {
    const { page, authenticator } = owner;
    const before = warnings.length;
    const { finish } = await addPasskeyAsideFirst(page, authenticator, 'Laptop again');
    expect(finish.status()).toBe(200);
    expect(warnings.slice(before).filter((text) => ALGORITHM_WARNING.test(text))).toEqual([]);
    expect(harness.problems()).toEqual([]);
  });
});
