// Config that cannot be misread, end to end: approval switched on holds written replies, and Config mistakes are named as such.
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntime, submission, type Runtime } from './runtime';

const STAFF = 'staff@example.com';
const OWNER = 'owner@example.com';

interface Mail {
  to: string;
  subject: string;
  body: string;
}

let rt: Runtime | undefined;

function runtime(): Runtime {
  if (!rt) throw new Error('no runtime');
  return rt;
}

async function tick(): Promise<string> {
  const execution = await runtime().run('processQueue');
  expect(execution.status, JSON.stringify(execution.error)).toBe('ok');
  return String(execution.value);
}

function replies(): Mail[] {
  return runtime().host.outbox.filter((mail: Mail) => mail.to !== STAFF);
}

/** The A1 address of a Config column in row `row`. */
function configCell(header: string, row = 2): string {
  const at = runtime().sheet('Config').header.indexOf(header);
  expect(at, header).toBeGreaterThanOrEqual(0);
  return `${String.fromCharCode(65 + at)}${row}`;
}

describe('Config that cannot be misread, in the local runtime', () => {
  afterEach(async () => {
    if (!rt) return;
    await rt.close();
    rt = undefined;
  });

  it('approval switched on after replies were written: the READY rows wait for approval instead of going out unreviewed', async () => {
    rt = await startRuntime({ props: { MAX_MAILS_PER_RECIPIENT_PER_DAY: '20' } });
    runtime().host.setMailQuota(0); // replies are written but cannot be mailed yet
    for (let n = 1; n <= 3; n++) await runtime().deliver(submission(n));
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['READY', 'READY', 'READY']);
    await runtime().host.edit({ sheet: 'Config', a1: configCell('approval_required'), value: 'TRUE', user: OWNER });
    runtime().host.setMailQuota(100);
    runtime().host.advanceClock(6 * 60_000); // past the 5 minutes a used-up quota holds sending back
    await tick();
    expect(runtime().queue().map((row) => row.status)).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    expect(replies()).toEqual([]);
    const log = runtime().sheet('Log');
    const detail = log.header.indexOf('detail');
    expect(log.rows.filter((line) => String(line[detail]).startsWith('approval is on for this form'))).toHaveLength(3);
  }, 60_000);
});
