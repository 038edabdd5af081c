import { IdentityApi, isSignedOut } from './api.mjs';
import {
  applyOrganization,
  capabilityBoxes,
  normalizeUserCode,
  renderCapabilities,
  renderOrganizations,
  RoleCapabilities,
  showGrantFacts,
  type DeviceGrantView,
} from './device-grant.view.mjs';
import type { OrganizationSummary } from './organizations.api.mjs';
import { signInAndReturn } from './return-to.mjs';
import { announce, byId, clearError, runAction, show, showError } from './ui.mjs';

const STEPS = ['signed-out', 'code-step', 'confirm-step', 'result-step'] as const;

/** A failure the page itself finds (nothing was sent): shown like the server's, then focus goes to `focus`. */
class PageCheckError extends Error {
  constructor(
    message: string,
    readonly focus: HTMLElement,
  ) {
    super(message);
    this.name = 'PageCheckError';
  }
}

/**
 * `/device`: code entry → confirmation (route 35 records that this session inspected it) →
 * approve (route 36) or deny (route 37) → result. Signed-out visitors go to sign in and come back.
 */
class DevicePage {
  private userCode = '';
  private grant: DeviceGrantView | undefined;
  private organizations: OrganizationSummary[] = [];
  /** Capabilities the user unticked (kept when the organization changes). */
  private readonly unticked = new Set<string>();
  private readonly roles: RoleCapabilities;

  constructor(private readonly api: IdentityApi) {
    this.roles = new RoleCapabilities(byId('decision-form').dataset['roleCapabilities']);
  }

  wire(): void {
    const codeForm = byId<HTMLFormElement>('code-form');
    codeForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run(codeForm, () => this.inspect(byId<HTMLInputElement>('user-code').value));
    });
    const decision = byId<HTMLFormElement>('decision-form');
    decision.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run(decision, () => this.approve());
    });
    const deny = byId<HTMLButtonElement>('deny');
    deny.addEventListener('click', () => void this.run(deny, () => this.deny()));
    byId<HTMLSelectElement>('organization').addEventListener('change', () => {
      clearError();
      this.organizationChanged();
    });
    byId('capability-list').addEventListener('change', (event) => {
      const box = event.target as HTMLInputElement;
      if (box.disabled) return;
      if (box.checked) this.unticked.delete(box.value);
      else this.unticked.add(box.value);
    });
  }

  /** Shows code entry to a signed-in user; anyone else is sent to sign in and brought back. */
  async start(): Promise<void> {
    try {
      await this.api.call('GET', this.api.route('me'));
    } catch (error) {
      if (isSignedOut(error)) return this.signIn();
      throw error;
    }
    // Every call from here on is a POST: without a CSRF token the server refuses it (403). A tab
    // opened from the terminal has none of its own; another open tab of this site may hand it over.
    const adopted = await this.api.adoptCsrfToken();
    this.step('code-step', 'code-heading');
    show(byId('tab-notice'), !adopted);
    byId('user-code').focus();
  }

  /** Runs an action; a session that ended meanwhile sends the user to sign in, a page check focuses its field. */
  private async run(control: HTMLButtonElement | HTMLFormElement, action: () => Promise<void>): Promise<void> {
    await runAction(control, async () => {
      try {
        await action();
      } catch (error) {
        if (isSignedOut(error)) return this.signIn();
        if (error instanceof PageCheckError) error.focus.focus();
        throw error;
      }
    });
    // runAction enables every button again; Approve stays off while the organization rules out everything.
    if (this.grant !== undefined) this.organizationChanged();
  }

  private signIn(): void {
    this.api.forgetCsrfToken();
    this.step('signed-out', 'signed-out-heading');
    signInAndReturn('/device');
  }

  private async inspect(typed: string): Promise<void> {
    const userCode = normalizeUserCode(typed);
    byId<HTMLInputElement>('user-code').value = userCode;
    const grant = await this.api.call<DeviceGrantView>('POST', this.api.route('deviceInspect'), { userCode });
    if (grant.state !== 'pending') {
      const approved = grant.state === 'authorized';
      return this.finish(
        approved ? 'Already approved' : 'Already denied',
        `This code was already ${approved ? 'approved' : 'denied'}; nothing changed.`,
      );
    }
    this.organizations = await this.api.call<OrganizationSummary[]>('GET', this.api.route('organizations'));
    this.userCode = userCode;
    this.grant = grant;
    this.unticked.clear();
    showGrantFacts(grant, userCode);
    renderOrganizations(this.organizations);
    renderCapabilities(grant.requestedCapabilities);
    this.organizationChanged();
    this.step('confirm-step', 'confirm-heading');
    announce(`${grant.clientName} asks to sign in. Check the request, choose the organization, then approve or deny.`);
  }

  private chosenOrganization(): OrganizationSummary | undefined {
    const id = byId<HTMLSelectElement>('organization').value;
    return this.organizations.find((organization) => organization.id === id);
  }

  private organizationChanged(): void {
    const ruledOut = applyOrganization(this.chosenOrganization(), this.roles, this.unticked);
    const none = this.organizations.length === 0;
    if (none) {
      byId('capability-note').textContent =
        'You are not a member of any organization, so no device can act for you: deny this request.';
    }
    byId<HTMLButtonElement>('approve').disabled = none || ruledOut.length === capabilityBoxes().length;
  }

  private async approve(): Promise<void> {
    const organization = this.chosenOrganization();
    if (organization === undefined) {
      throw new PageCheckError('Choose the organization the device may act in.', byId('organization'));
    }
    const capabilities = capabilityBoxes()
      .filter((box) => box.checked && !box.disabled)
      .map((box) => box.value);
    if (capabilities.length === 0) {
      const first = capabilityBoxes().find((box) => !box.disabled) ?? byId('organization');
      throw new PageCheckError('Tick at least one capability to approve, or deny the request.', first);
    }
    await this.api.call('POST', this.api.route('deviceApprove'), {
      userCode: this.userCode,
      organizationId: organization.id,
      capabilities,
    });
    this.finish(
      'Device approved',
      `${this.grant?.clientName ?? 'The device'} may now act in ${organization.name} with: ${capabilities.join(', ')}.`,
    );
  }

  private async deny(): Promise<void> {
    await this.api.call('POST', this.api.route('deviceDeny'), { userCode: this.userCode });
    this.finish('Device sign-in denied', `${this.grant?.clientName ?? 'The device'} was refused and gets no access.`);
  }

  private finish(heading: string, text: string): void {
    byId('result-heading').textContent = heading;
    byId('result-text').textContent = text;
    this.grant = undefined;
    this.step('result-step', 'result-heading');
    announce(`${heading}. You can return to your terminal.`);
  }

  /** Shows one step, hides the others, and moves focus to its heading. */
  private step(id: (typeof STEPS)[number], heading: string): void {
    for (const other of STEPS) show(byId(other), other === id);
    clearError();
    byId(heading).focus();
  }
}

async function main(): Promise<void> {
  const page = new DevicePage(await IdentityApi.load());
  page.wire();
  await page.start();
}

main().catch(showError);
