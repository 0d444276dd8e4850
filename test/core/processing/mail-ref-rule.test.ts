// The rule RECONCILE_SENT_MAIL stands on: every reply carries its row's mail_ref where the Sent check looks, whatever
// the form's Config subject and body say. The footer guarantees it, so Config needs no {{mail_ref}} check; this fails
// the day the footer is dropped or made optional.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerValuesByRef } from '../../../src/core/domain/typeform/template-answers';
import { buildMail } from '../../../src/core/processing/mail';
import { runProcessing } from '../../../src/core/processing/process-run';
import { countsAsCopy } from '../../../src/core/processing/sent-check';
import type { OutgoingMail, SentCopy } from '../../../src/core/domain/ports';
import { formConfig, pendingRow, T0, typeformFixture, world } from '../memory-ports';

const essay = answerValuesByRef(typeformFixture('essay-submission'));
const ON = { RECONCILE_SENT_MAIL: 'true' };

/** The mail as the Sent folder gives it back to the check: Gmail's plain and HTML parts joined (src/gas/sent-mailbox.ts). */
const asSentCopy = (mail: OutgoingMail): SentCopy => ({ id: 'm1', to: mail.to, subject: mail.subject, body: `${mail.body}\n${mail.htmlBody}`, sentAt: T0 });

/** Template pieces a Config cell may hold: text, every valid placeholder but {{mail_ref}}, blank lines, Markdown-looking text. */
const piece = fc.oneof(
  fc.constantFrom('{{result}}', '{{answers}}', '{{name}}', '{{course}}', '\n\n', '# Heading\n', '- a list item\n', '<b>not markup</b>', 'Reference: '),
  fc.string({ maxLength: 40 }).map((text) => text.replace(/[{}]/g, '')),
);
const template = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));

describe('every reply carries its mail_ref where the Sent check looks (RECONCILE_SENT_MAIL)', () => {
  it('for any Config subject and body without {{mail_ref}}, the plain and the HTML body both carry the reference', () => {
    fc.assert(
      fc.property(template, template, (subject, body) => {
        const row = pendingRow({ status: 'READY', result: 'Dear Mina,\n**well** done.', mailRef: 'FQ-7K2M9Q' });
        const built = buildMail({ row, config: formConfig({ subject, body }), answers: essay });
        if (built.kind !== 'mail') return false;
        return built.mail.body.includes('FQ-7K2M9Q') && built.mail.htmlBody.includes('FQ-7K2M9Q') && countsAsCopy(asSentCopy(built.mail), row.mailRef, row.recipient);
      }),
      { seed: 15, numRuns: 300 },
    );
  });

  it('with the setting on, a form whose subject and body never name {{mail_ref}} mails a copy the check can find', () => {
    const w = world(
      [pendingRow({ status: 'READY', result: 'Dear Mina, well done.', mailRef: 'FQ-AAAAAA', attempts: 1 })],
      ON,
      [formConfig({ subject: 'Your essay', body: 'Hello {{name}},\n\n{{result}}' })],
    );
    runProcessing(w.deps, { startedAt: T0 });
    expect(w.queue.row(2).status).toBe('SENT');
    const [mail] = w.mailer.outbox;
    expect(mail.subject).toBe('Your essay');
    expect(mail.body).toContain('Reference: FQ-AAAAAA');
    expect(mail.htmlBody).toContain('Reference: FQ-AAAAAA');
    expect(countsAsCopy(asSentCopy(mail), 'FQ-AAAAAA', w.queue.row(2).recipient)).toBe(true);
  });
});
