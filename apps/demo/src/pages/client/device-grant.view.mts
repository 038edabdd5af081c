import type { OrganizationSummary } from './organizations.api.mjs';
import { byId, codeText, timeElement } from './ui.mjs';

/** `DeviceGrantView` (identity-http §4.5): what route 35 shows of a device grant. */
export interface DeviceGrantView {
  readonly id: string;
  readonly clientName: string;
  readonly requestedCapabilities: readonly string[];
  readonly state: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

/** What each capability a device may ask for lets it do, in words for the person approving it. */
const CAPABILITY_SENTENCES: Readonly<Record<string, string>> = {
  'identity.profile': 'See your name and account',
  'identity.organizations': 'See the organizations you belong to',
  'organization.read': 'See the organization’s details',
  'package.publish': 'Publish packages on your behalf',
};

const USER_CODE = /^([A-Za-z0-9]{4})-?([A-Za-z0-9]{4})$/;

/**
 * The canonical `XXXX-XXXX` form of a typed code: surrounding spaces trimmed, either case, the dash
 * optional. Matched before upper-casing, so no non-ASCII look-alike can turn into a code letter;
 * anything else goes to the server as typed (trimmed), which answers with its error.
 */
export function normalizeUserCode(typed: string): string {
  const trimmed = typed.trim();
  const match = USER_CODE.exec(trimmed);
  return match === null ? trimmed : `${match[1]!.toUpperCase()}-${match[2]!.toUpperCase()}`;
}

/** Fills the confirmation facts: client, code, when it was requested and when the code expires. */
export function showGrantFacts(grant: DeviceGrantView, userCode: string): void {
  byId('grant-client').textContent = grant.clientName;
  byId('grant-code').textContent = userCode;
  byId('grant-requested').replaceChildren(timeElement(grant.createdAt));
  byId('grant-expires').replaceChildren(timeElement(grant.expiresAt));
}

/** Lists the organizations to choose from, after a placeholder: nothing is chosen for the user. */
export function renderOrganizations(organizations: readonly OrganizationSummary[]): void {
  const select = byId<HTMLSelectElement>('organization');
  const placeholder = new Option('Choose an organization…', '');
  const options = organizations.map(
    (organization) => new Option(`${organization.name} (${organization.slug}) — ${organization.role}`, organization.id),
  );
  select.replaceChildren(placeholder, ...options);
  select.value = '';
}

/** One checkbox per requested capability, ticked: its plain-words sentence, then its name. */
export function renderCapabilities(requested: readonly string[]): void {
  const items = requested.map((name, index) => {
    const id = `capability-${index}`;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.id = id;
    box.name = 'capability';
    box.value = name;
    box.checked = true;
    box.setAttribute('aria-describedby', `${id}-note`);
    const label = document.createElement('label');
    label.htmlFor = id;
    const sentence = CAPABILITY_SENTENCES[name];
    label.append(...(sentence === undefined ? [codeText(name)] : [`${sentence} (`, codeText(name), ')']));
    const note = document.createElement('span');
    note.id = `${id}-note`;
    note.className = 'hint';
    const item = document.createElement('li');
    item.append(box, label, note);
    return item;
  });
  byId('capability-list').replaceChildren(...items);
}

/** The capability checkboxes of the confirmation form. */
export function capabilityBoxes(): HTMLInputElement[] {
  return [...byId('capability-list').querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
}

/**
 * What each role may approve, from the page's `data-role-capabilities` (the demo's role matrix for
 * device capabilities). A capability the map does not know is left for the server to decide.
 */
export class RoleCapabilities {
  private readonly byRole: Readonly<Record<string, readonly string[]>>;
  private readonly known: ReadonlySet<string>;

  constructor(json: string | undefined) {
    this.byRole = JSON.parse(json ?? '{}') as Record<string, readonly string[]>;
    this.known = new Set(Object.values(this.byRole).flat());
  }

  /** `false` only when the map knows both and `role` does not hold `capability`. */
  allows(role: string, capability: string): boolean {
    const held = this.byRole[role];
    return held === undefined || !this.known.has(capability) || held.includes(capability);
  }
}

/**
 * Applies the chosen organization to the checkboxes: a capability the user's role there cannot
 * approve is unticked, disabled and explained; the others keep the user's own choice. Returns the
 * names ruled out.
 */
export function applyOrganization(
  organization: OrganizationSummary | undefined,
  roles: RoleCapabilities,
  unticked: ReadonlySet<string>,
): string[] {
  const ruledOut: string[] = [];
  for (const box of capabilityBoxes()) {
    const allowed = organization === undefined || roles.allows(organization.role, box.value);
    box.disabled = !allowed;
    box.checked = allowed && !unticked.has(box.value);
    byId(`${box.id}-note`).textContent = allowed
      ? ''
      : ` Not possible: your role there (${organization!.role}) does not allow it.`;
    if (!allowed) ruledOut.push(box.value);
  }
  const note = byId('capability-note');
  note.textContent =
    organization === undefined || ruledOut.length === 0
      ? ''
      : ruledOut.length === capabilityBoxes().length
        ? `In ${organization.name} your role (${organization.role}) allows none of what this device asks for: choose another organization, or deny.`
        : `In ${organization.name} your role (${organization.role}) does not allow ${ruledOut.join(', ')}; the device gets the rest only.`;
  return ruledOut;
}
