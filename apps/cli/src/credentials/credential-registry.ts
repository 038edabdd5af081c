import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode } from '../cli.errors.js';
import type { CredentialBackend, StoreKind, StoredLogin } from './credentials.types.js';
import { FileCredentialStore } from './file-credential.store.js';
import { KeyringCredentialStore } from './keyring-credential.store.js';
import { readJsonFile, writeJsonAtomic } from './private-file.js';

interface RegistryFile {
  version: 1;
  defaultServer?: string;
  servers: Record<string, { store: StoreKind; loggedInAt: string }>;
}

/** The file names inside the config folder. */
export const REGISTRY_FILE = 'config.json';
export const LOCK_FILE = 'credentials.lock';

/** The one-line warning printed (once per run) when the file store is in use. */
export const FILE_STORE_WARNING = (path: string) =>
  `warning: the OS keychain is not in use; tokens are stored in ${path} (mode 0600).`;

/**
 * The config folder: `TESSERA_CONFIG_DIR`, else `~/.config/tessera`.
 *
 * @example
 * configDirOf({ TESSERA_CONFIG_DIR: '/tmp/tessera' }); // '/tmp/tessera'
 */
export function configDirOf(env: NodeJS.ProcessEnv): string {
  return env.TESSERA_CONFIG_DIR || join(homedir(), '.config', 'tessera');
}

/**
 * The logins of all servers: `config.json` in the config folder (no secrets; 0600 like the rest)
 * records for each server which store holds its tokens (remembered from `login`, so a later run
 * never looks in the wrong place) and which server is the default (the most recent login); the
 * tokens themselves live in the OS keychain or in the file store.
 *
 * @example
 * const registry = new CredentialRegistry(process.env, (line) => process.stderr.write(`${line}\n`));
 * const login = await registry.load(registry.defaultServer()!);
 */
export class CredentialRegistry {
  readonly dir: string;
  readonly lockPath: string;
  private readonly registryPath: string;
  private readonly file: FileCredentialStore;
  private warned = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly warn: (line: string) => void,
  ) {
    this.dir = configDirOf(env);
    this.lockPath = join(this.dir, LOCK_FILE);
    this.registryPath = join(this.dir, REGISTRY_FILE);
    this.file = new FileCredentialStore(this.dir);
  }

  /** The server of the most recent login still stored. */
  defaultServer(): string | undefined {
    return this.read().defaultServer;
  }

  /** The store that holds the login of `server`. */
  storeOf(server: string): StoreKind | undefined {
    return this.read().servers[server]?.store;
  }

  /**
   * The store a new login goes to: `TESSERA_CREDENTIAL_STORE` (`file` or `keyring`) when set,
   * otherwise the keychain if a throwaway entry can be written, read and deleted, else the file.
   */
  async chooseStore(): Promise<StoreKind> {
    const forced = this.env.TESSERA_CREDENTIAL_STORE;
    if (forced === 'file') return this.fileChosen();
    const works = await KeyringCredentialStore.works();
    if (forced === 'keyring') {
      if (!works)
        throw new CliError(
          'TESSERA_CREDENTIAL_STORE=keyring, but the OS keychain does not work here.',
          ExitCode.failure,
        );
      return 'keyring';
    }
    if (forced !== undefined && forced !== '')
      throw new CliError('TESSERA_CREDENTIAL_STORE must be `file` or `keyring`.', ExitCode.usage);
    return works ? 'keyring' : this.fileChosen();
  }

  /** The stored login of `server`, from the store its login used. */
  async load(server: string): Promise<StoredLogin | undefined> {
    const entry = this.read().servers[server];
    if (entry === undefined) return undefined;
    return this.guard(entry.store, (backend) => backend.read(server));
  }

  /** Stores `login` in `store`; `asDefault` (a new login) also makes its server the default. */
  async save(login: StoredLogin, store: StoreKind, asDefault: boolean): Promise<void> {
    await this.guard(store, (backend) => backend.write(login));
    const registry = this.read();
    const previous = registry.servers[login.server];
    // A login moved to another store must not leave its old tokens behind.
    if (previous !== undefined && previous.store !== store)
      await this.guard(previous.store, (backend) => backend.remove(login.server));
    registry.servers[login.server] = { store, loggedInAt: login.loggedInAt };
    if (asDefault) registry.defaultServer = login.server;
    writeJsonAtomic(this.registryPath, registry);
  }

  /** Deletes the login of `server`; the default falls back to the most recent remaining login. */
  async remove(server: string): Promise<void> {
    const registry = this.read();
    const entry = registry.servers[server];
    if (entry === undefined) return;
    await this.guard(entry.store, (backend) => backend.remove(server));
    delete registry.servers[server];
    if (registry.defaultServer === server) {
      const [latest] = Object.entries(registry.servers).sort(([, a], [, b]) =>
        b.loggedInAt.localeCompare(a.loggedInAt),
      );
      if (latest === undefined) delete registry.defaultServer;
      else registry.defaultServer = latest[0];
    }
    writeJsonAtomic(this.registryPath, registry);
  }

  private read(): RegistryFile {
    const file = readJsonFile<RegistryFile>(this.registryPath);
    return file?.version === 1 && typeof file.servers === 'object' ? file : { version: 1, servers: {} };
  }

  private fileChosen(): 'file' {
    if (!this.warned) this.warn(FILE_STORE_WARNING(this.file.path));
    this.warned = true;
    return 'file';
  }

  private async guard<T>(kind: StoreKind, use: (backend: CredentialBackend) => Promise<T>): Promise<T> {
    if (kind === 'file') {
      this.fileChosen();
      return use(this.file);
    }
    try {
      return await use(new KeyringCredentialStore());
    } catch {
      throw new CliError(
        'The OS keychain that holds this login is not available; unlock it, or log in again.',
        ExitCode.failure,
      );
    }
  }
}
