import { ROLES, type InvitationView, type Membership, type OrganizationContext } from './organizations.api.mjs';
import {
  actionButton,
  announce,
  announceIn,
  byId,
  codeText,
  revealSecret,
  rowHeader,
  runAction,
  show,
  tableCell,
  timeElement,
  wireForm,
} from './ui.mjs';

/** `<origin>/identity/enroll#token=…`: the token only in the fragment, which browsers never send. */
function enrolmentLink(token: string): string {
  return `${location.origin}/identity/enroll#token=${encodeURIComponent(token)}`;
}

/** How a member is called on the page: their display name, else their user ID. */
function personName(membership: Membership): string {
  return membership.user?.displayName ?? membership.userId;
}

/** The member cell: display name, and the primary email under it when there is one. */
function personCell(membership: Membership): (Node | string)[] {
  if (membership.user === undefined) return [codeText(membership.userId, 'id')];
  const name = document.createElement('span');
  name.className = 'person-name';
  name.textContent = membership.user.displayName;
  name.title = membership.userId;
  if (membership.user.primaryEmail === undefined) return [name];
  const email = document.createElement('span');
  email.className = 'person-email';
  email.textContent = membership.user.primaryEmail;
  return [name, ' ', email];
}

/**
 * Members (routes 26–28) and invitations (30–32) of the organization page. Managers change roles,
 * remove members, invite (the enrolment link is shown once) and revoke pending invitations; every
 * change confirms with a passkey when the server asks for it.
 */
export class MembersPanel {
  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    wireForm(
      'create-invitation',
      async ({ email, role }, form) => {
        const { invitation, token, delivered } = await this.page.org.change<{
          invitation: InvitationView;
          token?: string;
          delivered?: true;
        }>('POST', ['invitations'], { email, role });
        form.reset();
        await this.refreshInvitations();
        const expires = new Date(invitation.expiresAt).toLocaleString(undefined, {
          dateStyle: 'medium',
          timeStyle: 'short',
        });
        if (token !== undefined)
          revealSecret(
            'invitation-secret',
            enrolmentLink(token),
            `For ${invitation.email} as ${invitation.role}; it works once, until ${expires}.`,
            'The enrolment link was copied to the clipboard.',
          );
        const sent =
          delivered === true
            ? ' The invitation was sent to them.'
            : ' Copy the enrolment link below; it is shown only once.';
        announce(`Invited ${invitation.email} as ${invitation.role}.${sent}`);
        await this.page.changed();
      },
      { conflict: 'An invitation for this email is already pending. Revoke it below to send a new one.' },
    );
  }

  refresh(): Promise<unknown> {
    return Promise.all([this.refreshMembers(), this.refreshInvitations()]);
  }

  private async refreshMembers(): Promise<void> {
    const memberships = await this.page.org.read<Membership[]>('memberships');
    for (const membership of memberships) {
      const name = personName(membership);
      this.page.names.set(membership.userId, name);
      this.page.names.set(membership.id, name);
    }
    const owners = memberships.filter((membership) => membership.role === 'owner' && membership.state === 'active');
    const soleOwner = owners.length === 1 ? owners[0]!.id : undefined;
    byId('members-body').replaceChildren(
      ...memberships.map((membership) => this.memberRow(membership, membership.id === soleOwner)),
    );
  }

  private async refreshInvitations(): Promise<void> {
    const invitations = await this.page.org.read<InvitationView[]>('invitations');
    for (const invitation of invitations) this.page.names.set(invitation.id, `the invitation for ${invitation.email}`);
    byId('invitations-body').replaceChildren(...invitations.map((invitation) => this.invitationRow(invitation)));
    show(byId('invitations-table'), invitations.length > 0);
    show(byId('invitations-empty'), invitations.length === 0);
  }

  /** `soleOwner`: the only active owner, whom the server would refuse to demote or remove. */
  private memberRow(membership: Membership, soleOwner: boolean): HTMLTableRowElement {
    const row = document.createElement('tr');
    row.dataset['membershipId'] = membership.id;
    const you = membership.userId === this.page.userId;
    const who = rowHeader(...personCell(membership));
    if (you) {
      row.className = 'current';
      const badge = document.createElement('strong');
      badge.className = 'badge';
      badge.textContent = 'you';
      who.append(' ', badge);
    }
    row.append(
      who,
      tableCell(membership.role),
      tableCell(membership.state),
      tableCell(timeElement(membership.createdAt)),
    );
    if (!this.page.manager) return row;
    if (soleOwner) {
      const note = tableCell('The only owner: make another member owner first.');
      note.className = 'row-actions hint';
      row.append(note);
    } else {
      row.append(this.memberActions(membership, you ? 'yourself' : personName(membership)));
    }
    return row;
  }

  private memberActions(membership: Membership, label: string): HTMLTableCellElement {
    const form = document.createElement('form');
    form.className = 'row-form';
    const select = document.createElement('select');
    select.name = 'role';
    select.setAttribute('aria-label', `New role for ${label}`);
    for (const role of ROLES) select.append(new Option(role, role, false, role === membership.role));
    const save = document.createElement('button');
    save.type = 'submit';
    save.className = 'secondary';
    save.textContent = 'Change role';
    save.setAttribute('aria-label', `Change the role of ${label}`);
    form.append(select, save);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void runAction(form, async () => {
        const changed = await this.page.org.change<Membership>('PATCH', ['memberships', membership.id], {
          role: select.value,
        });
        await this.afterChange(
          `The role of ${label} is now ${changed.role}; their sessions were signed out.`,
          membership.id,
        );
      });
    });
    const remove = actionButton('Remove', `Remove ${label} from the organization`, 'danger');
    remove.addEventListener('click', () =>
      runAction(remove, async () => {
        await this.page.org.change<Membership>('DELETE', ['memberships', membership.id]);
        await this.afterChange(`Removed ${label} from the organization.`, membership.id);
      }),
    );
    const cell = tableCell(form, remove);
    cell.className = 'row-actions';
    return cell;
  }

  private invitationRow(invitation: InvitationView): HTMLTableRowElement {
    const row = document.createElement('tr');
    row.append(
      rowHeader(invitation.email),
      tableCell(invitation.role),
      tableCell(invitation.state),
      // Only a pending invitation can still expire.
      tableCell(invitation.state === 'pending' ? timeElement(invitation.expiresAt) : '—'),
    );
    if (!this.page.manager) return row;
    const actions = tableCell();
    actions.className = 'row-actions';
    if (invitation.state === 'pending') {
      const revoke = actionButton('Revoke', `Revoke the invitation for ${invitation.email}`, 'danger');
      revoke.addEventListener('click', () =>
        runAction(revoke, async () => {
          await this.page.org.change<InvitationView>('DELETE', ['invitations', invitation.id]);
          show(byId('invitation-secret'), false);
          await this.refreshInvitations();
          announce(`The invitation for ${invitation.email} was revoked; its link no longer works.`);
          await this.page.changed();
        }),
      );
      actions.append(revoke);
    }
    row.append(actions);
    return row;
  }

  /**
   * After a change to `membershipId`: the audit log and the members reload, then `done` is shown in
   * the member's redrawn row (or under the table once the member is gone), focused, so the page is
   * current when it says so and keyboard and screen-reader users stay where they acted. A change
   * that signed this user out says that instead.
   */
  private async afterChange(done: string, membershipId: string): Promise<void> {
    if (!(await this.page.changed())) return;
    await this.refreshMembers();
    const row = [...byId('members-body').querySelectorAll('tr')].find(
      (tr) => tr.dataset['membershipId'] === membershipId,
    );
    announceIn(row?.querySelector<HTMLElement>('.row-actions') ?? byId('members-feedback'), done);
  }
}
