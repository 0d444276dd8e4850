// Contract tests for what staff see: every alert, prompt, toast, dialog and sidebar an execution shows, as text, in order.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHost } from './helpers';

let host: any;
afterEach(async () => { await host?.dispose(); });

describe('what staff see', () => {
  // Ui.alert/prompt return the button clicked (and the text typed); ButtonSet YES_NO shows YES and NO, OK_CANCEL OK and
  // CANCEL (https://developers.google.com/apps-script/reference/base/ui, .../base/button-set); Spreadsheet.toast shows
  // a message with a title (https://developers.google.com/apps-script/reference/spreadsheet/spreadsheet#toastmsg,-title).
  it('records each Ui shown, in order, as text, with the answer the runtime gave', async () => {
    host = makeHost('ui');
    const run = await host.run('everything', [], { kind: 'menu', user: 'staff@example.com', uiAnswers: ['NO', { button: 'OK', text: 'GEMINI_MODEL=x' }] });
    expect(run.value).toEqual({ sure: 'NO', button: 'OK', text: 'GEMINI_MODEL=x' });
    expect(run.ui).toEqual([
      { kind: 'alert', title: 'Process now', text: 'Run the queue now?', buttons: 'YES_NO', answer: 'NO' },
      { kind: 'prompt', title: 'Set a Script Property', text: 'Type KEY=VALUE', buttons: 'OK_CANCEL', answer: { button: 'OK', text: 'GEMINI_MODEL=x' } },
      { kind: 'toast', title: 'formqueue', text: '3 rows queued' },
      { kind: 'modal', title: 'formqueue: queue health', text: 'QUEUE HEALTH\n\n3 rows waiting, oldest 4 min.\n\n * PENDING 3' },
      { kind: 'sidebar', title: 'formqueue help', text: 'Help & tips' },
      { kind: 'alert', title: '', text: 'Done', buttons: 'OK', answer: 'OK' },
    ]);
  });

  it('without answers a person clicks the first button and types nothing', async () => {
    host = makeHost('ui');
    const run = await host.run('everything', [], { kind: 'menu' });
    expect(run.value).toEqual({ sure: 'YES', button: 'OK', text: '' });
    expect(run.ui.map((u: any) => u.answer)).toEqual(['YES', { button: 'OK', text: '' }, undefined, undefined, undefined, 'OK']);
  });

  it('an answer that is not a button of the dialog is refused', async () => {
    host = makeHost('ui');
    const run = await host.run('wrongAnswer', [], { kind: 'menu', uiAnswers: ['YES'] });
    expect(run.value).toBe('Error: the answer "YES" is not a button of OK (OK, CLOSE)');
  });
});
