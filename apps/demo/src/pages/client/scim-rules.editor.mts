import { SCIM_ROLES, type ScimGroupRoleRule } from './scim.api.mjs';
import { actionButton, byId } from './ui.mjs';

/** The largest number of rules a connection takes (the server's bound). */
const MAX_RULES = 100;

const MATCH_KINDS = [
  { value: 'displayName', label: 'Group display name is' },
  { value: 'externalId', label: 'Group external ID is' },
] as const;

function select(id: string, name: string, options: readonly { value: string; label: string }[]): HTMLSelectElement {
  const element = document.createElement('select');
  element.id = id;
  element.name = name;
  for (const { value, label } of options) element.append(new Option(label, value));
  return element;
}

const PART_NAMES = ['Match', 'Group', 'Role'] as const;

/** A control with its label; {@link ScimRulesEditor} names the label after the row's number. */
function labelled(control: HTMLElement): HTMLDivElement {
  const wrap = document.createElement('div');
  wrap.className = 'rule-part';
  const label = document.createElement('label');
  label.htmlFor = control.id;
  wrap.append(label, control);
  return wrap;
}

/**
 * The editable group-to-role rules of the "Create a connection" form: rows of match kind
 * (display name or external ID), group, role, each with a "Remove" button, and "Add a rule".
 * Rows are numbered in order, so their labels ("Group of rule 2") stay unique and readable.
 *
 * @example
 * const rules = new ScimRulesEditor('scim-rules');
 * rules.wire('scim-add-rule');
 * const groupRoles = rules.rules();
 */
export class ScimRulesEditor {
  private next = 0;

  constructor(private readonly containerId: string) {}

  wire(addButtonId: string): void {
    byId<HTMLButtonElement>(addButtonId).addEventListener('click', () => {
      if (this.rows().length >= MAX_RULES) return;
      const row = this.addRow();
      row.querySelector<HTMLInputElement>('input')?.focus();
    });
  }

  /** The rules as typed (surrounding spaces trimmed), in order. */
  rules(): ScimGroupRoleRule[] {
    return this.rows().map((row) => {
      const kind = row.querySelector<HTMLSelectElement>('select[name="matchKind"]')!.value;
      const value = row.querySelector<HTMLInputElement>('input[name="matchValue"]')!.value.trim();
      const role = row.querySelector<HTMLSelectElement>('select[name="role"]')!.value as ScimGroupRoleRule['role'];
      return { match: kind === 'externalId' ? { externalId: value } : { displayName: value }, role };
    });
  }

  /** Removes every row (after a connection was created). */
  clear(): void {
    byId(this.containerId).replaceChildren();
    this.renumber();
  }

  private rows(): HTMLElement[] {
    return [...byId(this.containerId).querySelectorAll<HTMLElement>('.rule-row')];
  }

  private addRow(): HTMLElement {
    const key = `scim-rule-${this.next++}`;
    const row = document.createElement('div');
    row.className = 'rule-row';
    row.setAttribute('role', 'group');
    const kind = select(`${key}-kind`, 'matchKind', MATCH_KINDS);
    const value = document.createElement('input');
    value.id = `${key}-value`;
    value.name = 'matchValue';
    value.required = true;
    value.maxLength = 1024;
    value.autocomplete = 'off';
    value.spellcheck = false;
    const role = select(
      `${key}-role`,
      'role',
      SCIM_ROLES.map((name) => ({ value: name, label: name })),
    );
    role.value = 'viewer';
    const remove = actionButton('Remove', 'Remove this rule', 'secondary');
    remove.addEventListener('click', () => {
      row.remove();
      this.renumber();
    });
    row.append(labelled(kind), labelled(value), labelled(role), remove);
    byId(this.containerId).append(row);
    this.renumber();
    return row;
  }

  /** Gives each row's controls the accessible names "Match of rule n", "Group of rule n", "Role of rule n". */
  private renumber(): void {
    const rows = this.rows();
    rows.forEach((row, index) => {
      const n = index + 1;
      row.setAttribute('aria-label', `Rule ${n}`);
      row.querySelectorAll('label').forEach((label, position) => {
        label.textContent = `${PART_NAMES[position]} of rule ${n}`;
      });
      row.querySelector('button')?.setAttribute('aria-label', `Remove rule ${n}`);
    });
    byId(`${this.containerId}-empty`).hidden = rows.length > 0;
  }
}
