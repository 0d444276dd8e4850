// Where a stale SENDING row goes back to when the Log proves its mail never went (neverMailedBack).
import { describe, expect, it } from 'vitest';
import { neverMailedBack } from '../../../src/core/processing/stale-sweep';
import { ABOUT_TO_SEND, withLedgerFacts } from '../../../src/core/domain/mail/send-ledger';
import type { LogEntry } from '../../../src/core/domain/sheet-ports';
import { MINUTE_MS } from '../../../src/core/domain/time';
import { T0 } from '../memory-ports';

const ANA = 'ana@school.example';
const line = (minute: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at: T0 + minute * MINUTE_MS, eventId: 'e1', from, to, by, detail });
const markedClaim = (minute: number, from = 'READY') => line(minute, from, 'SENDING', withLedgerFacts('claimed for sending', { mailRef: 'FQ-7K2M9Q', marked: true }));
const aboutToSend = (minute: number, by = 'system') => line(minute, 'SENDING', 'SENDING', ABOUT_TO_SEND, by);

describe('neverMailedBack', () => {
  it.each<[string, LogEntry[], 'READY' | 'APPROVED' | null]>([
    ['a marked claim from READY with no mark after it goes back to READY', [markedClaim(1)], 'READY'],
    ['a marked claim from APPROVED with no mark after it goes back to APPROVED', [markedClaim(1, 'APPROVED')], 'APPROVED'],
    ['a marked claim from a state that asks for no mail (FAILED) goes back nowhere', [markedClaim(1, 'FAILED')], null],
    ['a marked claim followed by the system\'s mark may have mailed', [markedClaim(1), aboutToSend(2)], null],
    ['a mark in the same millisecond as the claim counts as after it', [markedClaim(1), aboutToSend(1)], null],
    ['a mark of an earlier, settled claim says nothing of the standing one', [markedClaim(1), aboutToSend(2), line(3, 'SENDING', 'READY', 'quota'), markedClaim(4)], 'READY'],
    ['a mark only before the claim says nothing of it', [aboutToSend(0), markedClaim(1)], 'READY'],
    ['a person\'s line reading "about to send" is no mark', [markedClaim(1), aboutToSend(2, ANA)], 'READY'],
    ['a claim of an older version (not marked) may have mailed', [line(1, 'READY', 'SENDING', withLedgerFacts('claimed for sending', { mailRef: 'FQ-7K2M9Q' }))], null],
    ['no standing claim: nothing to put back', [markedClaim(1), line(2, 'SENDING', 'READY', 'quota')], null],
  ])('%s', (_name, history, expected) => {
    expect(neverMailedBack(history)).toBe(expected);
  });
});
