// How Google Sheets (en_US locale) reads a string typed into a cell or written by setValue(s)/appendRow: formulas, numbers, dates.
//
// Sources: "Sheets parses strings written by setValues/appendRow as if typed" (Range.setValues, developers.google.com/
// apps-script/reference/spreadsheet/range#setvaluesvalues: values are "interpreted as user-entered"); Sheets' number
// formats: support.google.com/docs/answer/56470; date/time patterns: developers.google.com/sheets/api/guides/formats;
// the US date order M/D/Y for the en_US locale: support.google.com/docs/answer/58515 (locale decides date parsing).
// A string starting with '+' or '-' that is not a number becomes a formula: phone numbers like "+44 20 …" turning into
// "Formula parse error" is a common report on Google's Docs Editors help community, answered with a leading apostrophe
// or a plain-text format.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const PLAIN_NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const GROUPED_NUMBER_RE = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;
const PERCENT_RE = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s?%$/;
const CURRENCY_RE = /^([+-]?)\$\s?(\d{1,3}(?:,\d{3})+|\d+)?(\.\d+)?$/;
const TIME_PART = '(\\d{1,2}):(\\d{2})(?::(\\d{2}))?(?:\\s?([AaPp])\\.?[Mm]\\.?)?';
const TIME_RE = new RegExp(`^${TIME_PART}$`);
const SLASH_DATE_RE = new RegExp(`^(\\d{1,2})/(\\d{1,2})(?:/(\\d{2}|\\d{4}))?(?:\\s+${TIME_PART})?$`);
const ISO_DATE_RE = new RegExp(`^(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})(?:\\s+${TIME_PART})?$`);
const NAMED_DATE_RE = /^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:,?\s+(\d{4}))?$/;
const CELL_REF_RE = /^\$?[A-Za-z]{1,3}\$?\d+(:\$?[A-Za-z]{1,3}\$?\d+)?$/;

export const FORMATS = {
  percent: '0%', percentDecimals: '0.00%', currency: '"$"#,##0.00', grouped: '#,##0', groupedDecimals: '#,##0.00',
  date: 'M/d/yyyy', isoDate: 'yyyy-mm-dd', dateTime: 'M/d/yyyy H:mm:ss', isoDateTime: 'yyyy-mm-dd H:mm:ss', time: 'H:mm', timeSeconds: 'H:mm:ss', time12: 'h:mm AM/PM',
};

/**
 * Reads one typed string (already known not to be '@' text, a leading-apostrophe text or a '=' formula) as Sheets does.
 * Returns { value, format? } for a literal, or { formula } when Sheets turns it into a formula ('+…' / '-…').
 * `zoned(y, mo, d, h, mi, s)` makes the Date for a wall-clock time in the spreadsheet's zone; `year` is the current one.
 */
export function readTyped(s, { zoned, year }) {
  const t = s.trim();
  if (t === '') return { value: s };
  if (PLAIN_NUMBER_RE.test(t)) return { value: Number(t) };
  if (GROUPED_NUMBER_RE.test(t)) return { value: Number(t.replace(/,/g, '')), format: t.includes('.') ? FORMATS.groupedDecimals : FORMATS.grouped };
  let m;
  if ((m = PERCENT_RE.exec(t))) return { value: Number(m[1]) / 100, format: m[1].includes('.') ? FORMATS.percentDecimals : FORMATS.percent };
  if ((m = CURRENCY_RE.exec(t)) && (m[2] || m[3])) {
    const n = Number(`${(m[2] ?? '0').replace(/,/g, '')}${m[3] ?? ''}`);
    return { value: m[1] === '-' ? -n : n, format: FORMATS.currency };
  }
  if (/^(true|false)$/i.test(t)) return { value: t.toLowerCase() === 'true' };
  const date = readDate(t, zoned, year);
  if (date) return date;
  // Sheets takes a leading + or - as the start of a formula ("=+44 20 7946 0958"), which then fails to parse.
  if (t.length > 1 && (t[0] === '+' || t[0] === '-')) return { formula: `=${t}` };
  return { value: s };
}

function clock(m, at) {
  let h = Number(m[at]), mi = Number(m[at + 1]), sec = m[at + 2] === undefined ? 0 : Number(m[at + 2]);
  const half = m[at + 3];
  if (mi > 59 || sec > 59) return null;
  if (half) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (/p/i.test(half) ? 12 : 0);
  } else if (h > 23) return null;
  return { h, mi, sec, seconds: m[at + 2] !== undefined, half: !!half };
}

function validDay(y, mo, d) { return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate(); }

/** Two-digit years: 00–29 are 20xx and 30–99 are 19xx (Sheets follows the usual spreadsheet pivot). */
function fullYear(text, year) {
  if (text === undefined) return year;
  const n = Number(text);
  return text.length === 4 ? n : n < 30 ? 2000 + n : 1900 + n;
}

/**
 * ISO timestamps with 'T' and a zone ('2026-12-01T06:01:24Z') are not matched, so they stay text. UNVERIFIED with
 * Google: we found no Google page on it; the community converts such strings with DATEVALUE(LEFT(…))+TIMEVALUE(MID(…)),
 * which only makes sense if Sheets leaves them as text, so that is what this runtime does.
 */
function readDate(t, zoned, year) {
  let m;
  if ((m = TIME_RE.exec(t))) {
    const c = clock(m, 1);
    if (!c) return null;
    // A time alone is the time of day on Sheets' day zero, 12/30/1899; Apps Script reads it back as that Date.
    return { value: zoned(1899, 12, 30, c.h, c.mi, c.sec), format: c.half ? FORMATS.time12 : c.seconds ? FORMATS.timeSeconds : FORMATS.time };
  }
  let y, mo, d, c = null, iso = false;
  if ((m = SLASH_DATE_RE.exec(t))) {
    [mo, d, y] = [Number(m[1]), Number(m[2]), fullYear(m[3], year)];
    if (m[4] !== undefined && !(c = clock(m, 4))) return null;
  } else if ((m = ISO_DATE_RE.exec(t))) {
    [y, mo, d, iso] = [Number(m[1]), Number(m[2]), Number(m[3]), true];
    if (m[4] !== undefined && !(c = clock(m, 4))) return null;
  } else if ((m = NAMED_DATE_RE.exec(t))) {
    const k = MONTHS.indexOf(m[1].slice(0, 3).toLowerCase());
    const name = m[1].toLowerCase();
    if (k < 0 || !(name.length === 3 || ['june', 'july', 'sept'].includes(name) || name === monthName(k))) return null;
    [y, mo, d] = [m[3] === undefined ? year : Number(m[3]), k + 1, Number(m[2])];
  } else return null;
  if (!validDay(y, mo, d)) return null;
  const value = zoned(y, mo, d, c ? c.h : 0, c ? c.mi : 0, c ? c.sec : 0);
  return { value, format: c ? (iso ? FORMATS.isoDateTime : FORMATS.dateTime) : iso ? FORMATS.isoDate : FORMATS.date };
}

const FULL_MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
function monthName(k) { return FULL_MONTHS[k]; }

/**
 * The value Sheets shows for a formula this runtime does not compute. A '+…'/'-…' formula that names nothing but one
 * word is "#NAME?" (unknown range name); one whose words are not joined by operators cannot be parsed: "#ERROR!".
 * Anything else reads as '' (formulas are stored, not evaluated).
 */
export function signFormulaValue(body) {
  const rest = body.replace(/^[+-]+/, '').trim();
  if (rest === '') return '#ERROR!';
  if (CELL_REF_RE.test(rest)) return '';
  if (/^[A-Za-z_][A-Za-z0-9_.]*$/.test(rest)) return '#NAME?';
  if (PLAIN_NUMBER_RE.test(rest)) return '';
  if (/[A-Za-z0-9_.)"]\s+[A-Za-z0-9_.("]/.test(rest) || /[^A-Za-z0-9_.\s+\-*/^&=<>(),:$"%]/.test(rest)) return '#ERROR!';
  return '';
}
