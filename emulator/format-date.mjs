// Date formatting shared by Utilities.formatDate (Java SimpleDateFormat subset) and Sheets display values.

const partsCache = new Map();
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const zoneChecks = new Map();

/**
 * Java's TimeZone.getTimeZone falls back to GMT for an unknown id; so do we. Whether ICU knows a zone id does not
 * change while the process runs, so each id is checked once (making a formatter to check it, for every date
 * formatted, showed in the e2e profiles).
 */
export function safeZone(tz) {
  const id = tz || 'UTC';
  let known = zoneChecks.get(id);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: id });
      known = true;
    } catch {
      known = false;
    }
    zoneChecks.set(id, known);
  }
  return known ? id : 'UTC';
}

function formatter(tz) {
  let f = partsCache.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric', weekday: 'short', timeZoneName: 'short',
    });
    partsCache.set(tz, f);
  }
  return f;
}

/**
 * Recent answers of zonedParts: a sheet read for display formats the same instants again and again (each timestamp
 * cell on every getDisplayValues), and formatToParts was most of that work in the profiles. Bounded: cleared when full.
 */
const recentParts = new Map();
const RECENT_PARTS_MAX = 10_000;

/** Calendar fields of an instant in a time zone, plus its UTC offset in minutes (a shared answer: do not change it). */
export function zonedParts(ms, tz) {
  tz = safeZone(tz);
  const key = `${tz} ${ms}`;
  let parts = recentParts.get(key);
  if (!parts) {
    if (recentParts.size >= RECENT_PARTS_MAX) recentParts.clear();
    parts = Object.freeze(computeParts(ms, tz));
    recentParts.set(key, parts);
  }
  return parts;
}

function computeParts(ms, tz) {
  const p = {};
  for (const { type, value } of formatter(tz).formatToParts(new Date(ms))) p[type] = value;
  const y = Number(p.year), mo = Number(p.month), d = Number(p.day), h = Number(p.hour) % 24, mi = Number(p.minute), s = Number(p.second);
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const offsetMin = Math.round((asUtc - (ms - (((ms % 1000) + 1000) % 1000))) / 60000);
  const dow = new Date(Date.UTC(y, mo - 1, d)).getUTCDay();
  return { y, mo, d, h, mi, s, ms: ((ms % 1000) + 1000) % 1000, dow, offsetMin, zoneName: p.timeZoneName };
}

const pad = (n, w) => String(n).padStart(w, '0');

function offsetText(min, sep, zForZero) {
  if (min === 0 && zForZero) return 'Z';
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return sign + pad(Math.floor(a / 60), 2) + sep + pad(a % 60, 2);
}

/** Formats like Java SimpleDateFormat, which Utilities.formatDate uses (GAS Utilities reference). */
export function formatJavaDate(ms, tz, pattern) {
  const t = zonedParts(ms, tz);
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const ch = pattern[i];
    if (ch === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) { out += "'"; i += 2; continue; }
      out += pattern.slice(i + 1, end === -1 ? pattern.length : end);
      i = end === -1 ? pattern.length : end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(ch)) { out += ch; i++; continue; }
    let n = 1;
    while (pattern[i + n] === ch) n++;
    i += n;
    switch (ch) {
      case 'G': out += 'AD'; break;
      case 'y': case 'Y': out += n === 2 ? pad(t.y % 100, 2) : pad(t.y, n); break;
      case 'M': case 'L': out += n >= 4 ? MONTHS[t.mo - 1] : n === 3 ? MONTHS[t.mo - 1].slice(0, 3) : pad(t.mo, n); break;
      case 'd': out += pad(t.d, n); break;
      case 'E': out += n >= 4 ? DAYS[t.dow] : DAYS[t.dow].slice(0, 3); break;
      case 'u': out += pad(t.dow === 0 ? 7 : t.dow, n); break;
      case 'a': out += t.h < 12 ? 'AM' : 'PM'; break;
      case 'H': out += pad(t.h, n); break;
      case 'k': out += pad(t.h === 0 ? 24 : t.h, n); break;
      case 'K': out += pad(t.h % 12, n); break;
      case 'h': out += pad(t.h % 12 === 0 ? 12 : t.h % 12, n); break;
      case 'm': out += pad(t.mi, n); break;
      case 's': out += pad(t.s, n); break;
      case 'S': out += pad(t.ms, 3).slice(0, Math.max(n, 3)).padEnd(n, '0'); break;
      case 'z': out += n >= 4 ? safeZone(tz) : (t.zoneName || 'UTC'); break;
      case 'Z': out += offsetText(t.offsetMin, '', false); break;
      case 'X': out += n === 1 ? (t.offsetMin === 0 ? 'Z' : offsetText(t.offsetMin, '', true).slice(0, 3)) : offsetText(t.offsetMin, n >= 3 ? ':' : '', true); break;
      default: throw new Error(`Illegal pattern character '${ch}'`);
    }
  }
  return out;
}

/**
 * Sheets number formats use 'm' for both month and minute (minute when next to h or s) and
 * 'h' as 24-hour unless AM/PM is present; translate to the Java subset above.
 */
export function sheetsDatePatternToJava(fmt) {
  // The same few formats every time (a column's format on every cell read): translated once each.
  let java = javaPatterns.get(fmt);
  if (java === undefined) {
    java = translatePattern(fmt);
    javaPatterns.set(fmt, java);
  }
  return java;
}
const javaPatterns = new Map();

function translatePattern(fmt) {
  const ampm = /am\/pm|a\/p/i.test(fmt);
  const tokens = fmt.replace(/am\/pm|a\/p/gi, '\u0001').match(/"[^"]*"|\\.|y+|m+|d+|h+|s+|\.0+|\u0001|[^ymdhs"\\\u0001]+/gi) || [];
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const tk = tokens[i], low = tk.toLowerCase();
    const prevIsH = () => { for (let j = i - 1; j >= 0; j--) { const l = tokens[j].toLowerCase(); if (/^[hdmys]/.test(l) && /^[a-z]/.test(l)) return l[0] === 'h'; } return false; };
    const nextIsS = () => { for (let j = i + 1; j < tokens.length; j++) { const l = tokens[j].toLowerCase(); if (/^[hdmys]/.test(l) && /^[a-z]/.test(l)) return l[0] === 's'; } return false; };
    if (tk.startsWith('"')) out.push("'" + tk.slice(1, -1).replace(/'/g, "''") + "'");
    else if (tk.startsWith('\\')) out.push("'" + tk.slice(1) + "'");
    else if (tk === '\u0001') out.push('a');
    else if (low[0] === 'y') out.push(low.length <= 2 ? 'yy' : 'yyyy');
    else if (low[0] === 'd') out.push(low.length >= 4 ? 'EEEE' : low.length === 3 ? 'EEE' : low.length === 2 ? 'dd' : 'd');
    else if (low[0] === 'h') out.push(ampm ? (low.length > 1 ? 'hh' : 'h') : (low.length > 1 ? 'HH' : 'H'));
    else if (low[0] === 's') out.push(low.length > 1 ? 'ss' : 's');
    else if (low.startsWith('.0')) out.push('.' + 'S'.repeat(low.length - 1));
    else if (low[0] === 'm') out.push(low.length <= 2 && (prevIsH() || nextIsS()) ? (low.length > 1 ? 'mm' : 'm') : low.length >= 4 ? 'MMMM' : low.length === 3 ? 'MMM' : low.length === 2 ? 'MM' : 'M');
    else out.push("'" + tk.replace(/'/g, "''") + "'");
  }
  return out.join('');
}

/** True when a Sheets number format pattern formats dates or times. */
export function isDatePattern(fmt) {
  return /[ymdhs]/i.test(String(fmt).replace(/"[^"]*"|\\./g, '')) && !/^[#0,.%\s]*$/.test(fmt) && !/general/i.test(fmt);
}
