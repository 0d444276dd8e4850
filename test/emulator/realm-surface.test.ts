// Every call the in-realm facades can send has a host handler, and every host handler is reachable from a script.
import { describe, expect, it } from 'vitest';
import { GasHost } from '../../emulator/host.mjs';
import { realmSurface } from './realm-surface';

const handlers = (): Record<string, Record<string, unknown>> => new GasHost({ bundleDir: 'dist', dataDir: null }).handlers;
const handled = () => Object.entries(handlers()).flatMap(([cls, methods]) => Object.keys(methods).map((m) => `${cls}.${m}`)).sort();

describe('the realm and the host agree', () => {
  // A facade method without a handler would answer "not emulated" only when a script first calls it, in production code.
  it('every method the realm sends to the host has a host handler', () => {
    const known = new Set(handled());
    expect(realmSurface().hostCalls.filter((call) => !known.has(call))).toEqual([]);
  });

  it('every host handler is reachable from the realm', () => {
    const sent = new Set(realmSurface().hostCalls);
    expect(handled().filter((call) => !sent.has(call))).toEqual([]);
  });
});
