// The mail guard's reading of the Log and the Suppressed sheet: which claim to send still stands, which was never recorded as mailed, and who is suppressed.
import { describe, expect, it } from 'vitest';
import { standingSendClaim, suppressedReason, unrecordedSendClaim } from '../../../../src/core/domain/mail/mail-guard';
import { suppressionIndex } from '../../../../src/core/domain/mail/suppression';
import type { LogEntry } from '../../../../src/core/domain/sheet-ports';
import { RESEND_AFTER_CHECK } from '../../../../src/core/processing/sent-check';
import { T0 } from '../../memory-ports';
import { ledgerLine as line } from '../../fakes/log-lines';


describe('standingSendClaim', () => {
  it.each<[string, LogEntry[], boolean]>([
    ['no line at all', [], false],
    ['generated, never claimed', [line(9, 'PENDING', 'GENERATING'), line(8, 'GENERATING', 'READY')], false],
    ['claimed and sent', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT')], true],
    ['claimed, outcome unknown', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW')], true],
    ['claimed, then the mail quota refused it (nothing left)', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'READY')], false],
    ['claimed, then the platform refused the address (nothing left)', [line(5, 'APPROVED', 'SENDING'), line(4, 'SENDING', 'FAILED')], false],
    ['sent, then a person asked for a new reply', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'SENT'), line(3, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org')], false],
    ['a refused staff edit is no decision', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'NEEDS_REVIEW', 'ana@example.org')], true],
    ['a Log sorted by staff is read in time order', [line(3, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org'), line(4, 'SENDING', 'SENT'), line(5, 'READY', 'SENDING')], false],
    ['a new claim after the retry stands again', [line(9, 'READY', 'SENDING'), line(8, 'NEEDS_REVIEW', 'PENDING', 'ana@example.org'), line(2, 'READY', 'SENDING')], true],
    ['claimed, then a person moved the row back to READY: only the system knows nothing left', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'READY', 'ana@example.org')], true],
    ['claimed, unknown outcome, then a person\'s paste of APPROVED', [line(5, 'APPROVED', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'APPROVED', 'ana@example.org')], true],
    ['claimed, unknown outcome, no copy in Sent after two looks: back to READY by the system', [line(5, 'READY', 'SENDING'), line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'READY')], false],
    ['claimed, then a paste of GENERATING the system swept and generated again (GENERATING → READY is no word on the mail)',
      [line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW'), line(7, '(unknown)', 'GENERATING', 'ana@example.org'), line(6, 'GENERATING', 'PENDING'), line(5, 'PENDING', 'GENERATING'), line(4, 'GENERATING', 'READY')], true],
    ['claimed, then a person\'s refused edit on a row the system had made PENDING is no request for a new reply',
      [line(9, 'READY', 'SENDING'), line(8, 'SENDING', 'NEEDS_REVIEW'), line(7, '(unknown)', 'GENERATING', 'ana@example.org'), line(6, 'GENERATING', 'PENDING'), line(5, 'PENDING', 'PENDING', 'ana@example.org')], true],
  ])('%s → %s', (_name, history, stands) => {
    expect(standingSendClaim(history) !== null).toBe(stands);
  });

  it('the claim that stands is the claim line itself, not a later system line on the SENDING row (a put-back): the Sent check searches from its time', () => {
    const claim = line(20, 'READY', 'SENDING');
    expect(standingSendClaim([claim, line(5, 'SENDING', 'SENDING')])).toBe(claim);
  });
});

describe("standingSendClaim after the Sent check's resend move", () => {
  // The Sent check's clock and Log lines, as test/core/processing/sent-check.test.ts writes them.
  const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
  const MIN = 60_000;
  const line = (at: number, from: string, to: string, detail = '', by = 'system'): LogEntry => ({ at, eventId: 'e1', from, to, by, detail });
  const claimLines = (from = 'READY') => [line(T0 - 1000, 'GENERATING', from), line(T0, from, 'SENDING', 'claimed for sending')];

  it('the resend move settles the Log\'s claim, so the send step may mail the row once more', () => {
    expect(standingSendClaim(claimLines())).not.toBeNull();
    expect(standingSendClaim([...claimLines(), line(T0 + 61 * MIN, 'SENDING', 'READY', RESEND_AFTER_CHECK)])).toBeNull();
  });
});

describe('unrecordedSendClaim: a standing claim no system line says was mailed', () => {
  const claim = line(5, 'READY', 'SENDING');
  it.each<[string, LogEntry[], LogEntry | null]>([
    ['claimed, then parked with an unknown outcome', [claim, line(4, 'SENDING', 'NEEDS_REVIEW')], claim],
    ['claimed and sent, then pasted back to NEEDS_REVIEW', [claim, line(4, 'SENDING', 'SENT'), line(3, '(unknown)', 'NEEDS_REVIEW', 'ana@example.org')], null],
    ['a send line written in the same millisecond as its claim', [claim, line(5, 'SENDING', 'SENT')], null],
    ['an earlier send, a new reply asked for, a new claim parked: the old send says nothing of it',
      [line(30, 'READY', 'SENDING'), line(29, 'SENDING', 'SENT'), line(20, 'SENT', 'PENDING', 'ana@example.org'), claim, line(4, 'SENDING', 'NEEDS_REVIEW')], claim],
    ['a person marking it SENT is no record of the mail', [claim, line(4, 'SENDING', 'NEEDS_REVIEW'), line(3, 'NEEDS_REVIEW', 'SENT', 'ana@example.org')], claim],
    ['sent, then a person asked for a new reply: no claim stands', [claim, line(4, 'SENDING', 'SENT'), line(3, 'SENT', 'PENDING', 'ana@example.org')], null],
  ])('%s', (_name, history, unrecorded) => {
    expect(unrecordedSendClaim(history)).toBe(unrecorded);
  });
});

describe('suppressedReason', () => {
  it('names the recipient as the cell holds it, without the blanks around it', () => {
    const list = suppressionIndex([{ address: 'mina@example.org', reason: 'asked us to stop', addedBy: 'desk@example.org', addedAt: T0 }]);
    expect(suppressedReason({ recipient: '  Mina@example.org ' }, list)).toMatch(/^Mina@example\.org is on the Suppressed sheet \(added by desk@example\.org: asked us to stop\)/);
    expect(suppressedReason({ recipient: 'other@example.org' }, list)).toBeNull();
  });
});
