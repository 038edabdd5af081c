import { copyText } from './ui.mjs';

/** The development outbox: "Copy the link" puts an enrolment link on the clipboard (for another browser profile). */
for (const button of document.querySelectorAll<HTMLButtonElement>('button.copy-link')) {
  button.addEventListener('click', () =>
    copyText(button.dataset['link'] ?? '', 'The enrolment link was copied to the clipboard.', 'select the link'),
  );
}
