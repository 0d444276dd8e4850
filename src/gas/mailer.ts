// Mailer port over MailApp: send-only scope, which staff consent to more easily than full Gmail (see docs/platform.md#mailapp).
import type { Mailer } from '../core/domain/ports';

/** Below this many recipients left, the quota is asked again rather than counted down (another execution may send too). */
const RECOUNT_BELOW = 25;

function recipientsOf(mail: { to: string; bcc?: string }): number {
  return [mail.to, mail.bcc ?? ''].join(',').split(',').filter((address) => address.trim() !== '').length;
}

/**
 * One Mailer per execution. The daily quota is asked once (getRemainingDailyQuota costs a call, ~300 ms, per ask)
 * and counted down by this execution's own sends; near the end of the quota it is asked before every send, where
 * another execution's mail would matter. MailApp still refuses a send past the quota, whatever was counted.
 */
export function createMailer(): Mailer {
  let known: number | null = null;
  return {
    remainingDailyQuota: () => {
      if (known === null || known < RECOUNT_BELOW) known = MailApp.getRemainingDailyQuota();
      return known;
    },
    send(mail) {
      const message: GoogleAppsScript.Mail.MailAdvancedParameters = {
        to: mail.to,
        subject: mail.subject,
        body: mail.body,
        htmlBody: mail.htmlBody,
      };
      if (mail.name) message.name = mail.name;
      if (mail.replyTo) message.replyTo = mail.replyTo;
      if (mail.bcc) message.bcc = mail.bcc;
      MailApp.sendEmail(message);
      if (known !== null) known -= recipientsOf(mail);
    },
  };
}
