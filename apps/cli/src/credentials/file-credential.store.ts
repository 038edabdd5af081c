import { join } from 'node:path';
import type { CredentialBackend, StoredLogin } from './credentials.types.js';
import { readJsonFile, writeJsonAtomic } from './private-file.js';

interface CredentialsFile {
  version: 1;
  logins: Record<string, StoredLogin>;
}

/** The file name of the file store inside the config folder. */
export const CREDENTIALS_FILE = 'credentials.json';

/**
 * The file credential store: `credentials.json` in the config folder (0700), written atomically
 * with mode 0600, holding the logins of several servers keyed by normalized server URL. Callers
 * serialize read-modify-write cycles with the credentials lock.
 *
 * @example
 * const store = new FileCredentialStore('/home/ada/.config/tessera');
 * await store.write(login);
 */
export class FileCredentialStore implements CredentialBackend {
  readonly kind = 'file' as const;
  readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, CREDENTIALS_FILE);
  }

  async read(server: string): Promise<StoredLogin | undefined> {
    return this.load().logins[server];
  }

  async write(login: StoredLogin): Promise<void> {
    const file = this.load();
    file.logins[login.server] = login;
    writeJsonAtomic(this.path, file);
  }

  async remove(server: string): Promise<void> {
    const file = this.load();
    if (!(server in file.logins)) return;
    delete file.logins[server];
    writeJsonAtomic(this.path, file);
  }

  private load(): CredentialsFile {
    const file = readJsonFile<CredentialsFile>(this.path);
    return file?.version === 1 && typeof file.logins === 'object' ? file : { version: 1, logins: {} };
  }
}
