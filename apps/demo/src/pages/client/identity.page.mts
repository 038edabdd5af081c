import { IdentityApi, isSignedOut } from './api.mjs';
import { renderPasskeys, renderSessions, type AccountActions, type SessionView } from './account.view.mjs';
import { authenticate, registerPasskey, withStepUp, type PasskeyView } from './ceremonies.mjs';
import {
  asFirstPasskey,
  firstPasskeyOffer,
  renderFirstPasskeyOffer,
  type FirstPasskeyOffer,
} from './first-passkey.mjs';
import { forgetReturn, pendingReturn } from './return-to.mjs';
import { announce, byId, formText, runAction, show, showError, showRecoveryCodes } from './ui.mjs';

/** `Me` (identity-http §4.5). */
interface Me {
  readonly userId: string;
  readonly displayName: string;
  readonly assuranceLevel: string;
}

interface Revoked {
  readonly revokedSessionIds: readonly string[];
  readonly clearCurrentCookie: boolean;
}

const ASSURANCE: Record<string, string> = {
  passkey: 'passkey (signed in with a passkey)',
  step_up: 'step_up (passkey confirmed recently)',
  session: 'session (federated sign-in)',
};

/**
 * `/identity`: sign-in when there is no usable session, the account otherwise. A federated
 * sign-in lands here; while its user has no passkey the page offers the first one (FED1).
 */
class AccountPage implements AccountActions {
  private passkeys: readonly PasskeyView[] = [];
  private sessions: readonly SessionView[] = [];
  private offer: FirstPasskeyOffer | undefined;
  private offerTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly api: IdentityApi) {}

  wire(): void {
    const click = (id: string, action: () => Promise<void>) => {
      const button = byId<HTMLButtonElement>(id);
      button.addEventListener('click', () => void runAction(button, action));
    };
    click('sign-in', () => this.signIn());
    click('step-up', () => this.stepUp());
    click('logout', () => this.logout());
    click('revoke-others', () => this.revokeOthers());
    click('revoke-all', () => this.revokeAll());
    click('replace-codes', () => this.replaceCodes());
    const add = byId<HTMLFormElement>('add-passkey');
    add.addEventListener('submit', (event) => {
      event.preventDefault();
      void runAction(add, () => this.addPasskey(formText(add)['credentialName'] ?? ''));
    });
  }

  /** Reads `/me`; a missing, expired or revoked session shows the sign-in view. */
  async refresh(): Promise<void> {
    let me: Me;
    try {
      me = await this.api.call<Me>('GET', this.api.route('me'));
    } catch (error) {
      if (isSignedOut(error)) return this.signedOut();
      throw error;
    }
    // Lists first, then the section: once the account is visible, everything in it is current.
    await Promise.all([this.refreshPasskeys(), this.refreshSessions()]);
    this.showFirstPasskeyOffer();
    byId('me-name').textContent = me.displayName;
    byId('me-user-id').textContent = me.userId;
    byId('me-assurance').textContent = ASSURANCE[me.assuranceLevel] ?? me.assuranceLevel;
    show(byId('signed-out'), false);
    show(byId('account'), true);
  }

  private signedOut(): void {
    this.api.forgetCsrfToken();
    clearTimeout(this.offerTimer);
    show(byId('account'), false);
    show(byId('codes-step'), false);
    show(byId('return-notice'), pendingReturn() !== undefined);
    show(byId('signed-out'), true);
  }

  private async refreshPasskeys(): Promise<void> {
    this.passkeys = await this.api.call<PasskeyView[]>('GET', this.api.route('passkeys'));
    renderPasskeys(this.passkeys, this);
  }

  private async refreshSessions(): Promise<void> {
    this.sessions = await this.api.call<SessionView[]>('GET', this.api.route('sessions'));
    renderSessions(this.sessions, this);
  }

  /** The FED1 notice, switched to "too late" when its five minutes end while the page is open. */
  private showFirstPasskeyOffer(): void {
    clearTimeout(this.offerTimer);
    this.offer = firstPasskeyOffer(this.sessions, this.passkeys);
    renderFirstPasskeyOffer(this.offer);
    const offer = this.offer;
    if (offer?.open === true) {
      this.offerTimer = setTimeout(
        () => renderFirstPasskeyOffer({ ...offer, open: false }),
        offer.until.getTime() - Date.now(),
      );
    }
  }

  private async signIn(): Promise<void> {
    announce('Waiting for your passkey…');
    await authenticate(this.api, 'sign_in');
    // A page that sent this tab here to sign in (the device confirmation) gets it back.
    const back = pendingReturn();
    if (back !== undefined) {
      forgetReturn();
      announce('Signed in. Taking you back…');
      location.assign(back);
      return;
    }
    await this.refresh();
    announce('Signed in.');
    byId('account-heading').focus();
  }

  private async stepUp(): Promise<void> {
    announce('Confirm it’s you with your passkey…');
    await authenticate(this.api, 'step_up');
    await this.refresh();
    announce('Confirmed: sensitive changes are allowed for the next five minutes.');
  }

  /** Sensitive actions retry once after a step-up when the server asks for one. */
  private stepUpFirst<T>(action: () => Promise<T>): Promise<T> {
    return withStepUp(this.api, action, () => announce('This needs a recent passkey check: confirm it’s you…'));
  }

  private async logout(): Promise<void> {
    await this.api.call('POST', this.api.route('logout'));
    this.signedOut();
    announce('Signed out.');
  }

  private async addPasskey(name: string): Promise<void> {
    announce('Creating a passkey…');
    // A federated user's first passkey needs no step-up (FED1), and could not have one.
    const { passkey } =
      this.offer === undefined
        ? await this.stepUpFirst(() => registerPasskey(this.api, name))
        : await asFirstPasskey(() => registerPasskey(this.api, name));
    byId<HTMLFormElement>('add-passkey').reset();
    await this.refresh();
    announce(`Passkey “${passkey.name}” added.`);
  }

  renamePasskey(passkey: PasskeyView, name: string, form: HTMLFormElement): void {
    void runAction(form, async () => {
      const renamed = await this.api.call<PasskeyView>('PATCH', this.api.route('passkeys', passkey.id), { name });
      await this.refreshPasskeys();
      announce(`Passkey renamed to “${renamed.name}”.`);
    });
  }

  revokePasskey(passkey: PasskeyView, button: HTMLButtonElement): void {
    void runAction(button, async () => {
      await this.stepUpFirst(() => this.api.call('DELETE', this.api.route('passkeys', passkey.id)));
      await this.refresh();
      announce(`Passkey “${passkey.name}” revoked.`);
    });
  }

  revokeSession(session: SessionView, button: HTMLButtonElement): void {
    void runAction(button, async () => {
      const result = await this.api.call<Revoked>('DELETE', this.api.route('sessions', session.id));
      if (result.clearCurrentCookie) {
        this.signedOut();
        announce('This browser’s session was revoked; you are signed out.');
        return;
      }
      await this.refreshSessions();
      announce('Session revoked.');
    });
  }

  private async revokeOthers(): Promise<void> {
    const result = await this.api.call<Revoked>('POST', `${this.api.route('sessions')}/revoke-others`);
    await this.refreshSessions();
    announce(`Signed out ${result.revokedSessionIds.length} other session(s).`);
  }

  private async revokeAll(): Promise<void> {
    await this.api.call<Revoked>('POST', `${this.api.route('sessions')}/revoke-all`);
    this.signedOut();
    announce('Every session was revoked; you are signed out.');
  }

  private async replaceCodes(): Promise<void> {
    const { codes } = await this.stepUpFirst(() =>
      this.api.call<{ generation: number; codes: string[] }>('POST', this.api.route('recoveryCodesReplace'), {}),
    );
    await this.refresh();
    showRecoveryCodes(codes);
    announce('New recovery codes are shown below; every earlier code stopped working.');
  }
}

async function main(): Promise<void> {
  const page = new AccountPage(await IdentityApi.load());
  page.wire();
  await page.refresh();
  // Already signed in when the page opened: a way back left by an abandoned redirect is stale.
  if (!byId('account').hidden) forgetReturn();
}

main().catch(showError);
