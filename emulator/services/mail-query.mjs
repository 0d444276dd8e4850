// A small subset of Gmail's search language over a mailbox, shared by GmailApp.search and Gmail.Users.Messages.list.
//
// Supported: words, "phrases", subject:, to:, from:, newer_than:, older_than:, after:, before:, in:sent and in:inbox
// (other in:/is:/label: values match everything). after:/before: take YYYY/MM/DD or seconds since the epoch
// (https://developers.google.com/workspace/gmail/api/guides/filtering; operators: https://support.google.com/mail/answer/7190).

/** The instant an after:/before: value names (ms); a date is read as midnight UTC here, a documented simplification. */
function instantOf(val) {
  if (/^\d{9,}$/.test(val)) return Number(val) * 1000;
  return Date.parse(val.replace(/\//g, '-'));
}

/**
 * in:sent and in:inbox tell the Sent folder from the inbox (a sent mail has no labels field: it is SENT); any other
 * label, and is:, matches, as before the inbox existed.
 */
function inMailbox(mail, op, val) {
  if (op === 'is' || (val !== 'sent' && val !== 'inbox')) return true;
  return (mail.labels ?? ['SENT']).includes(val.toUpperCase());
}

export function matchesQuery(mail, query, now) {
  const tokens = String(query).match(/(-?\w+:)?("[^"]*"|\S+)/g) || [];
  return tokens.every((tk) => {
    const m = /^(-?)(?:(\w+):)?(.*)$/.exec(tk);
    const neg = m[1] === '-', op = m[2]?.toLowerCase(), val = m[3].replace(/^"|"$/g, '').toLowerCase();
    let ok;
    if (op === 'in' || op === 'is' || op === 'label') ok = inMailbox(mail, op, val);
    else if (op === 'subject') ok = mail.subject.toLowerCase().includes(val);
    else if (op === 'to') ok = [mail.to, mail.cc, mail.bcc].join(',').toLowerCase().includes(val);
    else if (op === 'from') ok = mail.from.toLowerCase().includes(val);
    else if (op === 'newer_than' || op === 'older_than') {
      const n = parseInt(val, 10), unit = { d: 864e5, h: 36e5, m: 30 * 864e5, y: 365 * 864e5 }[val.slice(-1)] || 864e5;
      const newer = Date.parse(mail.sentAt) >= now - n * unit;
      ok = op === 'newer_than' ? newer : !newer;
    } else if (op === 'after' || op === 'before') {
      const t = instantOf(val);
      ok = op === 'after' ? Date.parse(mail.sentAt) >= t : Date.parse(mail.sentAt) < t;
    } else ok = `${mail.subject}\n${mail.body}\n${mail.htmlBody}`.toLowerCase().includes(val);
    return neg ? !ok : ok;
  });
}
