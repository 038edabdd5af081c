import { randomBytes } from 'node:crypto';
import { AsyncEntry } from '@napi-rs/keyring';
import type { CredentialBackend, StoredLogin } from './credentials.types.js';

/** The keychain service name of every entry. */
export const KEYRING_SERVICE = 'tessera';
/** Bound of one keychain call: a locked Secret Service can wait for a prompt forever. */
const KEYRING_TIMEOUT_MS = 5_000;

/**
 * The OS keychain store (macOS Keychain, Windows Credential Manager, Secret Service) through
 * `@napi-rs/keyring`: one entry per server (service `tessera`, account = normalized server URL)
 * holding the login as JSON.
 *
 * @example
 * if (await KeyringCredentialStore.works()) await new KeyringCredentialStore().write(login);
 */
export class KeyringCredentialStore implements CredentialBackend {
  readonly kind = 'keyring' as const;

  /**
   * Whether the keychain works on this machine: writes, reads back and deletes a throwaway entry.
   * Many Linux machines (no Secret Service, headless) have the library but no usable storage.
   */
  static async works(): Promise<boolean> {
    const entry = new AsyncEntry(KEYRING_SERVICE, `probe-${randomBytes(8).toString('hex')}`);
    const value = randomBytes(8).toString('hex');
    try {
      await entry.setPassword(value, AbortSignal.timeout(KEYRING_TIMEOUT_MS));
      const read = await entry.getPassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
      await entry.deletePassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
      return read === value;
    } catch {
      return false;
    }
  }

  async read(server: string): Promise<StoredLogin | undefined> {
    const text = await this.entry(server).getPassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
    return text === null || text === undefined ? undefined : (JSON.parse(text) as StoredLogin);
  }

  async write(login: StoredLogin): Promise<void> {
    await this.entry(login.server).setPassword(JSON.stringify(login), AbortSignal.timeout(KEYRING_TIMEOUT_MS));
  }

  async remove(server: string): Promise<void> {
    await this.entry(server).deletePassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
  }

  private entry(server: string): AsyncEntry {
    return new AsyncEntry(KEYRING_SERVICE, server);
  }
}
