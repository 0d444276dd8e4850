// A Journal line: the key a submission is journaled under, and its cells written as text Sheets keeps and read back.
import { describe, expect, it } from 'vitest';
import { eventIdOfCell, journalCells, journalEntryOf, journalKeyOf } from '../../../../src/core/domain/queue/journal-line';
import type { QueueRow } from '../../../../src/core/domain/queue/queue-row';
import { pendingRow, T0 } from '../../memory-ports';

const row = (n: number, patch: Partial<QueueRow> = {}) => pendingRow({ eventId: `evt-${n}`, responseToken: `tok-${n}`, ...patch });

describe('the key a submission is journaled under', () => {
  it.each<[string, Partial<QueueRow>, string]>([
    ['its identity: form id and response token', { eventId: 'e1', formId: 'F1', responseToken: 't1' }, 'tf:F1:t1'],
    ['the same identity whatever the event_id (a recovered response)', { eventId: 'reconciled:t1', formId: 'F1', responseToken: 't1' }, 'tf:F1:t1'],
    ['its event_id when it has no token', { eventId: 'e1', formId: 'F1', responseToken: '' }, 'event:e1'],
    ['its event_id without the blanks a hand edit left around it', { eventId: ' e1 ', formId: 'F1', responseToken: '' }, 'event:e1'],
    ['nothing to know it by', { eventId: ' ', formId: '', responseToken: '' }, ''],
  ])('%s', (_name, patch, expected) => {
    expect(journalKeyOf({ eventId: '', formId: '', responseToken: '', ...patch })).toBe(expected);
  });

  it('every cell after the time is text Sheets keeps as typed, and the event_id reads back', () => {
    const entry = journalEntryOf(row(1, { eventId: '123E4' }), T0);
    const cells = journalCells(entry);
    expect(cells[0]).toMatch(/^tf:/);
    expect(cells[1]).toBe('ev:123E4');
    expect(cells[2].startsWith('{')).toBe(true);
    expect(eventIdOfCell(cells[1])).toBe('123E4');
    expect(eventIdOfCell('123E4')).toBe('');
  });
});
