// Mailer port over MailApp: send-only scope, which staff consent to more easily than full Gmail (see docs/platform.md#mailapp).
import type { Mailer } from '../core/ports';

export function createMailer(): Mailer {
  return {
    remainingDailyQuota: () => MailApp.getRemainingDailyQuota(),
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
    },
  };
}
