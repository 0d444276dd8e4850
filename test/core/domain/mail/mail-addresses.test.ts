// Email addresses: which mailbox an address reaches, whatever its case, blanks and +tag.
import { describe, expect, it } from 'vitest';
import { mailboxOf } from '../../../../src/core/domain/mail/mail-addresses';

describe('mailboxOf', () => {
  it.each([
    ['Mina.Okafor@Example.com', 'mina.okafor@example.com'],
    ['  mina+essays@example.com ', 'mina@example.com'],
    ['mina+a+b@example.com', 'mina@example.com'],
    ['"a@b"@example.com', '"a@b"@example.com'],
    ['+tag@example.com', '@example.com'],
    [' No-At-Sign ', 'no-at-sign'],
    ['@example.com', '@example.com'],
  ])('%s reaches the mailbox %s', (address, mailbox) => {
    expect(mailboxOf(address)).toBe(mailbox);
  });
});
