// Host handlers for the container Ui and toasts: what staff would see, recorded per execution as text, with the answers given.
import { convert } from 'html-to-text';
import { GasError } from '../errors.mjs';

// Ui.ButtonSet → the buttons it shows (https://developers.google.com/apps-script/reference/base/button-set); closing
// the dialog with its X answers CLOSE (https://developers.google.com/apps-script/reference/base/button).
const BUTTONS = { OK: ['OK'], OK_CANCEL: ['OK', 'CANCEL'], YES_NO: ['YES', 'NO'], YES_NO_CANCEL: ['YES', 'NO', 'CANCEL'] };

/** A dialog's HTML as a person reads it (html-to-text renders blocks, lists and tables as text). */
export function htmlAsText(html) {
  return convert(String(html ?? ''), { wordwrap: false, selectors: [{ selector: 'table', format: 'dataTable' }, { selector: 'a', options: { ignoreHref: true } }] }).trim();
}

/** alert(prompt[, buttons]) and alert(title, prompt, buttons), likewise prompt (https://developers.google.com/apps-script/reference/base/ui). */
function dialogArgs(a) {
  const [title, text, buttons] = a.length >= 2 && typeof a[1] === 'string' ? a : [null, a[0], a[1]];
  return { title: title === null ? '' : String(title), text: String(text), buttons: String(buttons ?? 'OK') };
}

/**
 * The next answer for an alert or prompt: this run's own `answers` first, then the host-wide `ui.responses` queue,
 * else the first button (a person clicking OK / YES, typing nothing).
 */
function nextAnswer(x) {
  if (x.st.uiAnswers?.length) return x.st.uiAnswers.shift();
  return x.host.ui.responses.length ? x.host.ui.responses.shift() : undefined;
}

function checkButton(button, buttons) {
  const allowed = [...(BUTTONS[buttons] ?? [buttons]), 'CLOSE'];
  if (!allowed.includes(button)) throw new GasError(`the answer ${JSON.stringify(button)} is not a button of ${buttons} (${allowed.join(', ')})`, 'Error');
  return button;
}

function alertAnswer(x, buttons) {
  const given = nextAnswer(x);
  const button = given === undefined ? BUTTONS[buttons]?.[0] ?? 'OK' : typeof given === 'object' && given ? given.button : given;
  return checkButton(String(button), buttons);
}

function promptAnswer(x, buttons) {
  const given = nextAnswer(x);
  const first = BUTTONS[buttons]?.[0] ?? 'OK';
  // A bare string is what the person typed before clicking the first button.
  const answer = given === undefined ? { button: first, text: '' }
    : typeof given === 'string' ? { button: first, text: given } : { button: String(given.button ?? first), text: String(given.text ?? '') };
  checkButton(answer.button, buttons);
  return answer;
}

/** Records what was shown: per execution (POST /api/run's `ui`) and host-wide (host.ui.dialogs / toasts). */
function show(x, entry, legacy) {
  (x.exec.ui ??= []).push(entry);
  x.host.ui.dialogs.push({ ...legacy, executionId: x.exec.id });
}

export function showToast(x, [message, title]) {
  const entry = { kind: 'toast', title: title === undefined || title === null ? '' : String(title), text: String(message) };
  (x.exec.ui ??= []).push(entry);
  x.host.ui.toasts.push({ message: entry.text, title: entry.title, executionId: x.exec.id });
}

function showHtml(x, kind, out, title) {
  const content = out?.h?.content ?? '';
  const shownTitle = String(title ?? out?.h?.title ?? '');
  show(x, { kind, title: shownTitle, text: htmlAsText(content) }, { kind, title: shownTitle, content });
}

export const uiHandlers = {
  Ui: {
    addMenu: (x, h, [menu]) => {
      const menus = x.host.ui.menus.filter((m) => m.caption !== menu.caption);
      x.host.ui.menus = [...menus, { ...menu, executionId: x.exec.id }];
    },
    alert: (x, h, a) => {
      const { title, text, buttons } = dialogArgs(a);
      const answer = alertAnswer(x, buttons);
      show(x, { kind: 'alert', title, text, buttons, answer }, { kind: 'alert', title: title || null, prompt: text, buttons });
      return answer;
    },
    prompt: (x, h, a) => {
      const { title, text, buttons } = dialogArgs(a);
      const answer = promptAnswer(x, buttons);
      show(x, { kind: 'prompt', title, text, buttons, answer }, { kind: 'prompt', title: title || null, prompt: text, buttons });
      return answer;
    },
    showModalDialog: (x, h, [out, title]) => showHtml(x, 'modal', out, title),
    showModelessDialog: (x, h, [out, title]) => showHtml(x, 'modeless', out, title),
    showSidebar: (x, h, [out]) => showHtml(x, 'sidebar', out, undefined),
  },
};
