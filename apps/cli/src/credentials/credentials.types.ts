/** One login to one server, as the credential stores keep it. Never printed. */
export interface StoredLogin {
  /** The normalized server URL (the key). */
  readonly server: string;
  readonly clientId: string;
  readonly accessToken: string;
  /** RFC 3339 instant the access token stops working. */
  readonly accessTokenExpiresAt: string;
  readonly refreshToken: string;
  /** The approved capabilities, space-separated as the token endpoint returned them. */
  readonly scope: string;
  /** RFC 3339 instant of the `tessera login` that created the token family. */
  readonly loggedInAt: string;
}

/** Where a login's tokens live: the OS keychain or the JSON file under the config folder. */
export type StoreKind = 'keyring' | 'file';

/**
 * One place tokens can be kept, keyed by normalized server URL.
 *
 * @example
 * await backend.write(login);
 * (await backend.read(login.server))?.refreshToken;
 */
export interface CredentialBackend {
  readonly kind: StoreKind;
  read(server: string): Promise<StoredLogin | undefined>;
  write(login: StoredLogin): Promise<void>;
  remove(server: string): Promise<void>;
}
