// Joining a payload from the Payloads sheet's parts: retried and concurrent appends never make it unreadable.
import { describe, expect, it } from 'vitest';
import { joinPayloadParts, splitText, type PayloadPart } from '../../../../src/core/domain/queue/cell-chunks';

const json = JSON.stringify({ event_id: 'E1', text: 'ü😀 '.repeat(30) });
const pieces = splitText(json, 40);
const set = (): PayloadPart[] => pieces.map((text, i) => ({ part: i + 1, parts: pieces.length, text }));
const other = JSON.stringify({ event_id: 'E1', text: 'another body, same event id'.repeat(4) });
const otherPieces = splitText(other, 40);

describe('joinPayloadParts', () => {
  it.each<[string, PayloadPart[], string | null]>([
    ['one clean set', set(), json],
    ['a set written twice (a retry after Sheets failed before the Queue row)', [...set(), ...set()], json],
    ['a half-written set, then the whole set again', [...set().slice(0, 2), ...set()], json],
    ['two executions appending the same parts interleaved', set().flatMap((part) => [part, { ...part }]), json],
    ['parts out of sheet order', set().reverse(), json],
    ['a part missing', set().filter((part) => part.part !== 2), null],
    ['nothing', [], null],
  ])('%s', (_name, rows, expected) => {
    expect(joinPayloadParts(rows)).toBe(expected);
  });

  it('finds a readable body when two different bodies under one event id interleave their parts', () => {
    expect(pieces.length).toBe(otherPieces.length);
    const mixed: PayloadPart[] = [
      { part: 1, parts: pieces.length, text: pieces[0] },
      ...otherPieces.map((text, i) => ({ part: i + 1, parts: otherPieces.length, text })),
      ...pieces.slice(1).map((text, i) => ({ part: i + 2, parts: pieces.length, text })),
    ];
    const joined = joinPayloadParts(mixed);
    expect(joined).not.toBeNull();
    expect(() => JSON.parse(joined!)).not.toThrow();
  });
});
