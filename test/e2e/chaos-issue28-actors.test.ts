// The chaos actors of issue #28 (a respondent address that bounces, with the bounce check on; an address staff put on
// the Suppressed sheet): each fires on the crafted schedule chaos-issue28-actors.json, the run keeps every invariant,
// and what they did is in the sheets (the bounced reply marked, both addresses suppressed, the suppressed one unmailed).
import { describe, expect, it } from 'vitest';
import { checkSchedule } from '../../bench/chaos-check.mjs';
import { runSchedule } from '../../bench/chaos-run.mjs';
import { recipientOf, eventIdOf } from '../../harness/runtime.mjs';
import { startOfflineGemini } from '../../emulator/offline-gemini.mjs';
import issue28Actors from './chaos-issue28-actors.json';

describe('the actors of issue #28 in the runtime', () => {
  it('a bounce and a staff suppression in a chaos schedule: 0 duplicate mails, 0 lost, the bounced row marked, the suppressed address never mailed', { timeout: 180_000 }, async () => {
    const gemini = await startOfflineGemini({ port: 0 });
    try {
      const observed = await runSchedule(issue28Actors, { gemini });
      expect(observed.actors).toEqual(expect.arrayContaining(['dead-address', 'staff-suppress']));
      const result = checkSchedule(observed);
      expect(result.violations).toEqual([]);
      expect(result).toMatchObject({ duplicateEmails: 0, lost: 0, secretsLeaked: 0 });
      const queue = observed.sheets.Queue;
      const cell = (n: number, name: string) => String(queue.rows.find((row: unknown[]) => row[queue.header.indexOf('event_id')] === eventIdOf(n))?.[queue.header.indexOf(name)] ?? '');
      // Submission 1's address is dead (pick 0.05): its reply went, bounced, and the row says so.
      expect(cell(1, 'status')).toBe('SENT');
      expect(cell(1, 'error')).toMatch(new RegExp(`^BOUNCED: ${recipientOf(1)}: Address not found`));
      // Submission 3's address was suppressed by staff (pick 0.25): never mailed, waiting for a person.
      expect(cell(3, 'status')).toBe('NEEDS_REVIEW');
      expect(cell(3, 'error')).toMatch(/^SUPPRESSED: /);
      expect(observed.outbox.filter((mail: any) => mail.to === recipientOf(3))).toEqual([]);
      const suppressed = observed.sheets.Suppressed.rows.map((row: unknown[]) => String(row[0]));
      expect(suppressed.sort()).toEqual([recipientOf(1), recipientOf(3)].sort());
    } finally {
      await gemini.close();
    }
  });
});
