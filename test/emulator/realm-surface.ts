// The realm's surface, read the way a script sees it: every service global and facade class with its methods, and every
// host call the realm can make (facade remote/chain tables plus the literal rt.call sites of its service members).
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { realmCore } from '../../emulator/realm/core.mjs';
import { realmOutput } from '../../emulator/realm/output.mjs';
import { realmServices } from '../../emulator/realm/services.mjs';
import { realmSpreadsheet } from '../../emulator/realm/spreadsheet.mjs';

const REALM_FILES = ['core', 'spreadsheet', 'services', 'output'].map((name) => new URL(`../../emulator/realm/${name}.mjs`, import.meta.url));
const SERVICES = ['SpreadsheetApp', 'LockService', 'CacheService', 'PropertiesService', 'UrlFetchApp', 'MailApp', 'GmailApp', 'Session',
  'ScriptApp', 'ContentService', 'HtmlService', 'Utilities', 'Logger'];

export interface RealmSurface {
  /** 'Class.method' for every method a script can call on a service global or a facade. */
  methods: string[];
  /** 'Class.method' for every call the realm sends to the host. */
  hostCalls: string[];
}

export function realmSurface(info: Record<string, unknown> = {}): RealmSurface {
  const ctx = vm.createContext({});
  const rt: any = vm.runInContext('({})', ctx);
  rt.natives = { hostCall: () => ({ v: null }), log: () => undefined };
  rt.info = { kind: 'menu', denied: {}, ...info };
  vm.runInContext(`(${realmCore.toString()})`, ctx)(rt);
  const hostCalls = new Set<string>();
  const define = rt.defineClass;
  rt.defineClass = (cls: string, spec: { remote?: string[]; chain?: string[] }) => {
    for (const m of [...(spec.remote ?? []), ...(spec.chain ?? [])]) hostCalls.add(`${cls}.${m}`);
    return define(cls, spec);
  };
  for (const install of [realmSpreadsheet, realmServices, realmOutput]) vm.runInContext(`(${install.toString()})`, ctx)(rt);

  // Service members call the host with literal class and method names; the one non-literal call is defineClass's own.
  for (const file of REALM_FILES) {
    const source = readFileSync(file, 'utf8');
    const literal = [...source.matchAll(/rt\.call\('(\w+)', '(\w+)'/g)];
    for (const [, cls, m] of literal) hostCalls.add(`${cls}.${m}`);
    const all = source.match(/rt\.call\(/g)?.length ?? 0;
    const generic = source.match(/rt\.call\(cls, m,/g)?.length ?? 0;
    if (all !== literal.length + generic) throw new Error(`${file.pathname}: an rt.call with computed names; name the class and method literally`);
  }

  const methods: string[] = [];
  for (const name of SERVICES) {
    const service = (ctx as any)[name];
    for (const key of Object.keys(service)) if (typeof service[key] === 'function' && key !== 'toString') methods.push(`${name}.${key}`);
  }
  for (const [cls, proto] of Object.entries(rt.protos as Record<string, object>)) {
    for (const key of Object.keys(proto)) if (key !== 'toString') methods.push(`${cls}.${key}`);
  }
  return { methods: methods.sort(), hostCalls: [...hostCalls].sort() };
}
