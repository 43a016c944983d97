/**
 * jq 1.8.2's date natives: `gmtime`, `localtime`, `mktime`, `strftime`, `strflocaltime`, `strptime`
 * (and through them jq's `todate`, `fromdate`, `dateadd`...). jq delegates to the C library (glibc
 * on Linux, C locale); we reproduce glibc's conversions and jq's quirks on broken-down times:
 * `[year, month0, mday, hours, minutes, seconds, wday, yday]`.
 *
 * As jq 1.8.2 reads a broken-down time: the numbers present (a shorter array leaves the rest 0),
 * truncated to C ints, then normalized by `timegm` (UTC) or `mktime` (local time), which recomputes
 * the day of week and year (`[2024,13,40]` is 2025-03-12). Quirks kept because jq has them: `gmtime`
 * truncates toward zero and then adds the fractional part (so -1.5 gives ...59.5); `strftime`'s `%s`
 * reads the fields as local time while its `%Z` is `GMT`; `mktime` of the instant -1 fails; `strptime`
 * keeps a trailing-whitespace remainder as a ninth element; a non-empty format with an empty result
 * is an error.
 */
import { JqRuntimeError } from "../errors.js";

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const MON_YDAY = [
  [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365],
  [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366],
];
const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days from 1970-01-01 to the proleptic Gregorian date y-m-d (m 1..12; d may be out of range). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date [year, month 1..12, day] of a day count from 1970-01-01. */
function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** A C `struct tm` (only the fields jq uses). */
interface Tm {
  year: number; // full year (tm_year + 1900)
  mon: number;
  mday: number;
  hour: number;
  min: number;
  sec: number;
  wday: number;
  yday: number;
}

function tmToArray(tm: Tm): number[] {
  // C adds 1900 to tm_year as an int: a year near INT_MAX wraps.
  return [(tm.year - 1900 + 1900) | 0, tm.mon, tm.mday, tm.hour, tm.min, tm.sec, tm.wday, tm.yday];
}

/** gmtime_r of whole seconds; null when the year does not fit C's int. */
function gmtimeSecs(secs: number): Tm | null {
  const days = Math.floor(secs / 86400);
  let rem = secs - days * 86400;
  const [y, m, d] = civilFromDays(days);
  if (y - 1900 > INT_MAX || y - 1900 < INT_MIN) return null;
  const hour = Math.floor(rem / 3600);
  rem -= hour * 3600;
  const min = Math.floor(rem / 60);
  const sec = rem - min * 60;
  const wday = (((days + 4) % 7) + 7) % 7;
  const yday = MON_YDAY[isLeap(y) ? 1 : 0][m - 1] + d - 1;
  return { year: y, mon: m - 1, mday: d, hour, min, sec, wday, yday };
}

/** Seconds either side of the epoch that Date represents. */
const DATE_LIMIT = 8.64e12;

/** Seconds in 400 Gregorian years: the calendar, and so a zone's yearly daylight saving rule, repeats. */
const CYCLE_400Y = 146097 * 86400;

/**
 * The process zone's offset east of UTC (seconds, local mean time's included) at `secs`. Past Date's
 * range the tz database's last rule repeats each year: the same instant of an equivalent year is
 * asked; before it, the offset at its start (local mean time) holds.
 */
function offsetAt(secs: number): number {
  // A day inside the range, so the local fields of the instant exist too.
  const limit = DATE_LIMIT - 86400;
  let at = Math.max(-limit, secs);
  if (at > limit) at -= Math.ceil((at - limit) / CYCLE_400Y) * CYCLE_400Y;
  const d = new Date(Math.floor(at) * 1000);
  const wall = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds());
  // Date.UTC reads years 0..99 as 1900..1999: correct through setUTCFullYear when that matters.
  const w = new Date(wall);
  if (d.getFullYear() >= 0 && d.getFullYear() < 100) w.setUTCFullYear(d.getFullYear());
  return Math.round((w.getTime() - d.getTime()) / 1000);
}

/** localtime_r of whole seconds in the process time zone; null when the year does not fit C's int. */
function localtimeSecs(secs: number): Tm | null {
  return gmtimeSecs(secs + offsetAt(secs));
}

function brokenDown(t: unknown, fn: "gmtime" | "localtime"): number[] {
  if (typeof t !== "number") throw new JqRuntimeError(`${fn}() requires numeric inputs`);
  // C converts the double to time_t by truncation, then jq adds back the fraction above floor(t).
  const secs = Math.trunc(t);
  const tm = Number.isFinite(secs) ? (fn === "gmtime" ? gmtimeSecs(secs) : localtimeSecs(secs)) : null;
  if (tm === null) throw new JqRuntimeError("error converting number of seconds since epoch to datetime");
  const out = tmToArray(tm);
  out[5] = tm.sec + (t - Math.floor(t));
  return out;
}

/** jq's `gmtime`: seconds since the epoch to a UTC broken-down time (fractional seconds kept). */
export function gmtime(t: unknown): number[] {
  return brokenDown(t, "gmtime");
}

/** jq's `localtime`: like {@link gmtime} in the process time zone (TZ). */
export function localtime(t: unknown): number[] {
  return brokenDown(t, "localtime");
}

/** C's conversion of a jq number to an int field (truncation; out-of-range values clamp). */
function toInt(n: number): number {
  if (n !== n) return 0;
  const t = Math.trunc(n);
  return t > INT_MAX ? INT_MAX : t < INT_MIN ? INT_MIN : t;
}

/**
 * jq 1.8.2's jv2tm: the fields present (at most eight; a missing one is 0) as C ints, the year less
 * 1900 clamped as one; null when one is not a number (or is nan).
 */
function toTm(a: unknown[]): Tm | null {
  const f = [0, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 0; i < 8 && i < a.length; i++) {
    const v = a[i];
    if (typeof v !== "number" || v !== v) return null;
    f[i] = toInt(i === 0 ? v - 1900 : v);
  }
  return { year: f[0]! + 1900, mon: f[1]!, mday: f[2]!, hour: f[3]!, min: f[4]!, sec: f[5]!, wday: f[6]!, yday: f[7]! };
}

/**
 * timegm: a UTC broken-down time (fields out of range carried as C does) to seconds since the epoch,
 * or null when the normalized year does not fit C's int (glibc then fails).
 */
export function timegm(tm: { year: number; mon: number; mday: number; hour: number; min: number; sec: number }): number | null {
  const y = tm.year + Math.floor(tm.mon / 12);
  const mon = ((tm.mon % 12) + 12) % 12;
  const days = daysFromCivil(y, mon + 1, 1) + tm.mday - 1;
  const small = days * 86400 + tm.hour * 3600 + tm.min * 60 + tm.sec;
  // Beyond 2^53 the sum is done exactly, then rounded once, as C converts its 64-bit time_t.
  const t = Number.isSafeInteger(small)
    ? small
    : Number(BigInt(days) * 86400n + BigInt(tm.hour) * 3600n + BigInt(tm.min) * 60n + BigInt(tm.sec));
  const normalizedYear = civilFromDays(Math.floor(t / 86400))[0];
  return normalizedYear - 1900 > INT_MAX || normalizedYear - 1900 < INT_MIN ? null : t;
}

/** timegm's normalization of the fields (day of week and year recomputed); unchanged when it fails. */
function normalizeUtc(tm: Tm): Tm {
  const t = timegm(tm);
  return (t === null ? null : gmtimeSecs(t)) ?? tm;
}

/** jq's `mktime`: a UTC broken-down time to whole seconds since the epoch. */
export function mktime(bt: unknown): number {
  if (!Array.isArray(bt)) throw new JqRuntimeError("mktime requires array inputs");
  const tm = toTm(bt);
  if (tm === null) throw new JqRuntimeError("mktime requires parsed datetime inputs");
  const t = timegm(tm);
  // timegm signals failure with -1, which jq cannot tell from the instant 1969-12-31T23:59:59Z.
  if (t === null || t === -1) throw new JqRuntimeError("invalid gmtime representation");
  return t;
}

/** The wall-clock fields of `tm` read as UTC: seconds, fields out of range carried. */
function wallSeconds(tm: Tm): number {
  const y = tm.year + Math.floor(tm.mon / 12);
  const mon = ((tm.mon % 12) + 12) % 12;
  return (daysFromCivil(y, mon + 1, 1) + tm.mday - 1) * 86400 + tm.hour * 3600 + tm.min * 60 + tm.sec;
}

/**
 * mktime(3) in the process time zone. With `isdst` -1 the zone decides whether daylight saving time is
 * in effect (a time skipped by a change moves forward, as Date does); with 0 (jq's strftime passes a tm
 * whose tm_isdst is 0 to glibc's `%s`) the fields are read as standard time.
 */
function localMktime(tm: Tm, isdst: -1 | 0 = -1): number {
  const wall = wallSeconds(tm);
  let t: number;
  if (Math.abs(wall) < DATE_LIMIT - 86400) {
    const d = new Date(0);
    d.setFullYear(tm.year, tm.mon, tm.mday);
    d.setHours(tm.hour, tm.min, tm.sec, 0);
    t = Math.floor(d.getTime() / 1000);
  } else {
    t = wall - offsetAt(wall);
  }
  if (isdst === 0) {
    const year = gmtimeSecs(t)?.year ?? 1970;
    const standard = Math.min(offsetAt(wallSeconds({ ...tm, year, mon: 0, mday: 1 })), offsetAt(wallSeconds({ ...tm, year, mon: 6, mday: 1 })));
    if (offsetAt(t) > standard) t = wall - standard;
  }
  return t;
}

/** A time zone as strftime's `%Z` and `%z` show it: its abbreviation and its offset east of UTC (seconds). */
interface Zone {
  name: () => string;
  offset: number;
  /** The tm_isdst `%s` passes to mktime: 0 for jq's strftime (a UTC tm), -1 (decided) in local time. */
  isdst: -1 | 0;
}
const GMT: Zone = { name: () => "GMT", offset: 0, isdst: 0 };

/**
 * ICU has no table of the tz database's abbreviations: English locales name a zone where they use it
 * (EST in en-US, BST in en-GB, IST in en-IN and en-IE, AEST in en-AU...). The first alphabetic name
 * found stands for tm_zone; a zone none of them names gets the tz database's numeric form (+0530, -03).
 */
const ZONE_LOCALES = ["en-US", "en-GB", "en-IE", "en-IN", "en-AU", "en-NZ", "en-ZA", "en-CA"];
let zoneFormatters: { tz: string | undefined; formats: Intl.DateTimeFormat[] } | undefined;

function zoneName(secs: number, offset: number): string {
  const tz = process.env.TZ;
  let cache = zoneFormatters;
  if (cache === undefined || cache.tz !== tz) zoneFormatters = cache = { tz, formats: [] };
  const formats = cache.formats;
  const at = new Date(Math.max(-DATE_LIMIT, Math.min(DATE_LIMIT, secs)) * 1000);
  try {
    for (let i = 0; i < ZONE_LOCALES.length; i++) {
      const format = (formats[i] ??= new Intl.DateTimeFormat(ZONE_LOCALES[i], { timeZoneName: "short" }));
      const name = format.formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "";
      if (/^[A-Z]{2,5}$/.test(name)) return name;
    }
  } catch {
    // No usable ICU data: the numeric form.
  }
  const minutes = Math.round(Math.abs(offset) / 60);
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0");
  return (offset < 0 ? "-" : "+") + hh + (minutes % 60 ? String(minutes % 60).padStart(2, "0") : "");
}

/** The process zone at the instant `secs`. */
function localZone(secs: number): Zone {
  const offset = offsetAt(secs);
  return { name: () => zoneName(secs, offset), offset, isdst: -1 };
}

/** mktime's normalization in the process time zone (isdst unknown): the fields and the zone of that instant. */
function normalizeLocal(tm: Tm): { tm: Tm; zone: Zone } {
  const secs = localMktime(tm);
  const local = Number.isFinite(secs) ? localtimeSecs(secs) : null;
  return local ? { tm: local, zone: localZone(secs) } : { tm, zone: localZone(0) };
}

/** glibc's iso_week_days: days since the Monday starting the ISO year's first week. */
function isoWeekDays(yday: number, wday: number): number {
  const big = (Math.trunc(366 / 7) + 2) * 7;
  return yday - ((yday - wday + 4 + big) % 7) + 4 - 1;
}

function isoYearAndDays(tm: Tm): [number, number] {
  let year = tm.year;
  let days = isoWeekDays(tm.yday, tm.wday);
  if (days < 0) {
    year--;
    days = isoWeekDays(tm.yday + (365 + (isLeap(year) ? 1 : 0)), tm.wday);
  } else {
    const d = isoWeekDays(tm.yday - (365 + (isLeap(year) ? 1 : 0)), tm.wday);
    if (d >= 0) {
      year++;
      days = d;
    }
  }
  return [year, days];
}

function pad(n: number, width: number, padChar: string): string {
  const neg = n < 0;
  let s = String(Math.abs(n));
  if (padChar !== "" && s.length < width) s = padChar.repeat(width - s.length - (neg ? 1 : 0)) + s;
  return neg ? "-" + s : s;
}

/** glibc strftime in the C locale for our broken-down time. */
function formatTm(fmt: string, tm: Tm, zone: Zone): string {
  let out = "";
  const n = fmt.length;
  for (let i = 0; i < n; i++) {
    const ch = fmt[i];
    if (ch !== "%") {
      out += ch;
      continue;
    }
    const m = /^%([_\-0^#]*)(\d*)([EO]?)(.?)/s.exec(fmt.slice(i))!;
    const flags = m[1];
    const width = m[2] ? Number(m[2]) : -1;
    const conv = m[4];
    i += m[0].length - 1;
    // glibc: the last of `_`, `-` and `0` chooses the padding; with a width `-` pads with spaces too.
    let padFlag = "";
    for (const f of flags) if (f === "_" || f === "-" || f === "0") padFlag = f;
    const num = (v: number, defWidth: number, defPad = "0"): string => {
      const p = padFlag === "-" ? (width >= 0 ? " " : "") : padFlag === "_" ? " " : padFlag === "0" ? "0" : defPad;
      return pad(v, width >= 0 ? width : defWidth, p);
    };
    const text = (s: string, swapToLower = false, upper = flags.includes("^")): string => {
      if (upper) s = s.toUpperCase();
      else if (flags.includes("#")) s = swapToLower ? s.toLowerCase() : s.toUpperCase();
      if (width > s.length) s = (padFlag === "0" ? "0" : " ").repeat(width - s.length) + s;
      return s;
    };
    const day = tm.wday >= 0 && tm.wday <= 6 ? DAYS[tm.wday] : "?";
    const month = tm.mon >= 0 && tm.mon <= 11 ? MONTHS[tm.mon] : "?";
    const hour12 = tm.hour % 12 === 0 ? 12 : tm.hour % 12;
    switch (conv) {
      case "a":
        out += text(day === "?" ? day : day.slice(0, 3));
        break;
      case "A":
        out += text(day);
        break;
      case "b":
      case "h":
        out += text(month === "?" ? month : month.slice(0, 3));
        break;
      case "B":
        out += text(month);
        break;
      case "c":
        out += text(formatTm("%a %b %e %H:%M:%S %Y", tm, zone));
        break;
      case "C":
        out += num(Math.floor(tm.year / 100), 1);
        break;
      case "d":
        out += num(tm.mday, 2);
        break;
      case "D":
        out += text(formatTm("%m/%d/%y", tm, zone));
        break;
      case "e":
        out += num(tm.mday, 2, " ");
        break;
      case "F":
        out += text(formatTm("%Y-%m-%d", tm, zone));
        break;
      case "g":
        out += num((((isoYearAndDays(tm)[0] % 100) + 100) % 100), 2);
        break;
      case "G":
        out += num(isoYearAndDays(tm)[0], 1);
        break;
      case "H":
        out += num(tm.hour, 2);
        break;
      case "I":
        out += num(hour12, 2);
        break;
      case "j":
        out += num(tm.yday + 1, 3);
        break;
      case "k":
        out += num(tm.hour, 2, " ");
        break;
      case "l":
        out += num(hour12, 2, " ");
        break;
      case "m":
        out += num(tm.mon + 1, 2);
        break;
      case "M":
        out += num(tm.min, 2);
        break;
      case "n":
        out += text("\n");
        break;
      case "p":
        out += text(tm.hour > 11 ? "PM" : "AM", true);
        break;
      case "P":
        // Always lower case: glibc ignores `^` here.
        out += text(tm.hour > 11 ? "pm" : "am", true, false);
        break;
      case "r":
        out += text(formatTm("%I:%M:%S %p", tm, zone));
        break;
      case "R":
        out += text(formatTm("%H:%M", tm, zone));
        break;
      case "s":
        out += num(localMktime(tm, zone.isdst), 1);
        break;
      case "S":
        out += num(tm.sec, 2);
        break;
      case "t":
        out += text("\t");
        break;
      case "T":
        out += text(formatTm("%H:%M:%S", tm, zone));
        break;
      case "u":
        out += num(((tm.wday - 1 + 7) % 7) + 1, 1);
        break;
      case "U":
        out += num(Math.trunc((tm.yday - tm.wday + 7) / 7), 2);
        break;
      case "V":
        out += num(Math.trunc(isoYearAndDays(tm)[1] / 7) + 1, 2);
        break;
      case "w":
        out += num(tm.wday, 1);
        break;
      case "W":
        out += num(Math.trunc((tm.yday - ((tm.wday - 1 + 7) % 7) + 7) / 7), 2);
        break;
      case "x":
        out += text(formatTm("%m/%d/%y", tm, zone));
        break;
      case "X":
        out += text(formatTm("%H:%M:%S", tm, zone));
        break;
      case "y":
        out += num(((tm.year % 100) + 100) % 100, 2);
        break;
      case "Y":
        out += num(tm.year | 0, 1);
        break;
      case "z": {
        // glibc pads the sign to the width (with spaces unless `0`), then the number as well.
        const off = Math.trunc(Math.abs(zone.offset) / 60);
        const sign = zone.offset < 0 ? "-" : "+";
        out += (width > 1 ? (padFlag === "0" ? "0" : " ").repeat(width - 1) : "") + sign + num(Math.trunc(off / 60) * 100 + (off % 60), 4);
        break;
      }
      case "Z":
        out += text(zone.name(), true);
        break;
      case "%":
        out += text("%");
        break;
      default:
        // glibc copies an unknown conversion through (padded to its width).
        out += text(m[0]);
    }
  }
  return out;
}

function strftimeImpl(t: unknown, fmt: unknown, name: "strftime" | "strflocaltime"): string {
  let bt: unknown = t;
  if (typeof t === "number") {
    bt = name === "strftime" ? gmtime(t) : localtime(t);
  } else if (!Array.isArray(t)) {
    throw new JqRuntimeError(`${name}/1 requires parsed datetime inputs`);
  }
  if (typeof fmt !== "string") throw new JqRuntimeError(`${name}/1 requires a string format`);
  const given = toTm(bt as unknown[]);
  if (given === null) throw new JqRuntimeError(`${name}/1 requires parsed datetime inputs`);
  const { tm, zone } = name === "strftime" ? { tm: normalizeUtc(given), zone: GMT } : normalizeLocal(given);
  const out = formatTm(fmt, tm, zone);
  // jq treats strftime's 0 for a non-empty format (an empty result, or one too long for its buffer) as a failure.
  if ((out.length === 0 && fmt.length > 0) || Buffer.byteLength(out) >= fmt.length + 100) {
    throw new JqRuntimeError(`${name}/1: unknown system failure`);
  }
  return out;
}

/** jq's `strftime(fmt)`: formats seconds since the epoch (as UTC) or a broken-down time. */
export function strftime(t: unknown, fmt: unknown): string {
  return strftimeImpl(t, fmt, "strftime");
}

/** jq's `strflocaltime(fmt)`: like {@link strftime}, numbers taken in the process time zone. */
export function strflocaltime(t: unknown, fmt: unknown): string {
  return strftimeImpl(t, fmt, "strflocaltime");
}

// ---------------------------------------------------------------------------------------------
// strptime

interface ParseState {
  s: string;
  pos: number;
  tm: Tm;
  haveI: boolean;
  isPm: boolean;
  century: number;
  wantCentury: boolean;
  wantXday: boolean;
  haveWday: boolean;
  haveYday: boolean;
  haveMon: boolean;
  haveMday: boolean;
  haveUweek: boolean;
  haveWweek: boolean;
  weekNo: number;
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\v" || c === "\f" || c === "\r";

function getNumber(st: ParseState, from: number, to: number, digits: number): number | null {
  while (isSpace(st.s[st.pos])) st.pos++;
  let val = 0;
  let k = 0;
  while (k < digits && st.pos < st.s.length && st.s[st.pos] >= "0" && st.s[st.pos] <= "9") {
    val = val * 10 + (st.s.charCodeAt(st.pos) - 48);
    st.pos++;
    k++;
  }
  if (k === 0 || val < from || val > to) return null;
  return val;
}

/** Matches a full or abbreviated name (case-insensitively); returns its index. */
function getName(st: ParseState, names: string[]): number | null {
  const rest = st.s.slice(st.pos).toLowerCase();
  for (let i = 0; i < names.length; i++) {
    const full = names[i].toLowerCase();
    if (rest.startsWith(full)) {
      st.pos += full.length;
      return i;
    }
    if (rest.startsWith(full.slice(0, 3))) {
      st.pos += 3;
      return i;
    }
  }
  return null;
}

function dayOfTheWeek(tm: Tm): void {
  const days = daysFromCivil(tm.year, tm.mon + 1, 1) + tm.mday - 1;
  tm.wday = (((days + 4) % 7) + 7) % 7;
}

function dayOfTheYear(tm: Tm): void {
  const mon = Math.min(Math.max(tm.mon, 0), 11);
  tm.yday = MON_YDAY[isLeap(tm.year) ? 1 : 0][mon] + tm.mday - 1;
}

/** The conversions glibc's strptime takes an E (era) or O (alternative digits) modifier before. */
const E_CONVERSIONS = "cCxXY";
const O_CONVERSIONS = "bBhdeHImMSUVwWy";

/** One strptime directive run against the input; false when it does not match. */
function parseFormat(st: ParseState, fmt: string): boolean {
  const tm = st.tm;
  for (let i = 0; i < fmt.length; i++) {
    const f = fmt[i];
    if (isSpace(f)) {
      while (isSpace(st.s[st.pos])) st.pos++;
      continue;
    }
    if (f !== "%") {
      if (st.s[st.pos] !== f) return false;
      st.pos++;
      continue;
    }
    i++;
    // glibc reads an E or O modifier only before the conversions that have an alternative form (in the C
    // locale, the ordinary one); anywhere else the format does not match (GNU flags and widths neither).
    if (fmt[i] === "E" || fmt[i] === "O") {
      if (!(fmt[i] === "E" ? E_CONVERSIONS : O_CONVERSIONS).includes(fmt[i + 1] ?? "")) return false;
      i++;
    }
    const c = fmt[i];
    let v: number | null;
    switch (c) {
      case "%":
        if (st.s[st.pos] !== "%") return false;
        st.pos++;
        break;
      case "a":
      case "A":
        while (isSpace(st.s[st.pos])) st.pos++;
        v = getName(st, DAYS);
        if (v === null) return false;
        tm.wday = v;
        st.haveWday = true;
        break;
      case "b":
      case "B":
      case "h":
        while (isSpace(st.s[st.pos])) st.pos++;
        v = getName(st, MONTHS);
        if (v === null) return false;
        tm.mon = v;
        st.haveMon = true;
        st.wantXday = true;
        break;
      case "c":
        if (!parseFormat(st, "%a %b %e %H:%M:%S %Y")) return false;
        st.wantXday = true;
        break;
      case "C":
        v = getNumber(st, 0, 99, 2);
        if (v === null) return false;
        st.century = v;
        st.wantXday = true;
        break;
      case "d":
      case "e":
        v = getNumber(st, 1, 31, 2);
        if (v === null) return false;
        tm.mday = v;
        st.haveMday = true;
        st.wantXday = true;
        break;
      case "F":
        if (!parseFormat(st, "%Y-%m-%d")) return false;
        st.wantXday = true;
        break;
      case "x":
      case "D":
        if (!parseFormat(st, "%m/%d/%y")) return false;
        st.wantXday = true;
        break;
      case "k":
      case "H":
        v = getNumber(st, 0, 23, 2);
        if (v === null) return false;
        tm.hour = v;
        st.haveI = false;
        break;
      case "l":
      case "I":
        v = getNumber(st, 1, 12, 2);
        if (v === null) return false;
        tm.hour = v % 12;
        st.haveI = true;
        break;
      case "j":
        v = getNumber(st, 1, 366, 3);
        if (v === null) return false;
        tm.yday = v - 1;
        st.haveYday = true;
        break;
      case "m":
        v = getNumber(st, 1, 12, 2);
        if (v === null) return false;
        tm.mon = v - 1;
        st.haveMon = true;
        st.wantXday = true;
        break;
      case "M":
        v = getNumber(st, 0, 59, 2);
        if (v === null) return false;
        tm.min = v;
        break;
      case "n":
      case "t":
        while (isSpace(st.s[st.pos])) st.pos++;
        break;
      case "p": {
        while (isSpace(st.s[st.pos])) st.pos++;
        const two = st.s.slice(st.pos, st.pos + 2).toUpperCase();
        if (two === "AM") st.isPm = false;
        else if (two === "PM") st.isPm = true;
        else return false;
        st.pos += 2;
        break;
      }
      case "r":
        if (!parseFormat(st, "%I:%M:%S %p")) return false;
        break;
      case "R":
        if (!parseFormat(st, "%H:%M")) return false;
        break;
      case "s": {
        // Seconds since the epoch, converted with localtime as glibc does.
        // glibc reads digits only: no sign, no leading space.
        const m = /^(\d+)/.exec(st.s.slice(st.pos, st.pos + 400));
        if (!m) return false;
        st.pos += m[0].length;
        const lt = localtimeSecs(Number(m[1]));
        if (lt === null) return false;
        Object.assign(tm, lt);
        break;
      }
      case "S":
        v = getNumber(st, 0, 61, 2);
        if (v === null) return false;
        tm.sec = v;
        break;
      case "X":
      case "T":
        if (!parseFormat(st, "%H:%M:%S")) return false;
        break;
      case "u":
        v = getNumber(st, 1, 7, 1);
        if (v === null) return false;
        tm.wday = v % 7;
        st.haveWday = true;
        break;
      case "g":
        if (getNumber(st, 0, 99, 2) === null) return false;
        break;
      case "G": {
        // The ISO year is read and ignored.
        const m = /^\d+/.exec(st.s.slice(st.pos));
        if (!m) return false;
        st.pos += m[0].length;
        break;
      }
      case "U":
        v = getNumber(st, 0, 53, 2);
        if (v === null) return false;
        st.weekNo = v;
        st.haveUweek = true;
        break;
      case "W":
        v = getNumber(st, 0, 53, 2);
        if (v === null) return false;
        st.weekNo = v;
        st.haveWweek = true;
        break;
      case "V":
        if (getNumber(st, 0, 53, 2) === null) return false;
        break;
      case "w":
        v = getNumber(st, 0, 6, 1);
        if (v === null) return false;
        tm.wday = v;
        st.haveWday = true;
        break;
      case "y":
        v = getNumber(st, 0, 99, 2);
        if (v === null) return false;
        // POSIX: 69-99 are 1969-1999, 00-68 are 2000-2068.
        tm.year = v >= 69 ? 1900 + v : 2000 + v;
        st.wantCentury = true;
        st.wantXday = true;
        break;
      case "Y":
        v = getNumber(st, 0, 9999, 4);
        if (v === null) return false;
        tm.year = v;
        st.wantCentury = false;
        st.wantXday = true;
        break;
      case "Z":
        // Read (but not interpreted), as glibc does.
        while (st.pos < st.s.length && !isSpace(st.s[st.pos])) st.pos++;
        break;
      case "z": {
        while (st.s[st.pos] === " ") st.pos++;
        if (st.s[st.pos] === "Z") {
          st.pos++;
          break;
        }
        const m = /^[+-](\d{2})(?::?(\d{2}))?/.exec(st.s.slice(st.pos));
        if (!m || (m[2] !== undefined && Number(m[2]) > 59)) return false;
        st.pos += m[0].length;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

/**
 * jq's `strptime(fmt)`: parses a date with glibc's strptime conversions into a broken-down time,
 * computing the day of week and day of year as glibc (then jq) do. Whitespace may follow the parsed
 * date; jq then appends that remainder as a ninth element.
 */
export function strptime(s: unknown, fmt: unknown): unknown[] {
  if (typeof s !== "string" || typeof fmt !== "string") {
    throw new JqRuntimeError("strptime/1 requires string inputs and arguments");
  }
  // jq's sentinels 8 and 367 mark "not computed"; tm starts zeroed (year 1900).
  const tm: Tm = { year: 1900, mon: 0, mday: 0, hour: 0, min: 0, sec: 0, wday: 8, yday: 367 };
  const st: ParseState = {
    s,
    pos: 0,
    tm,
    haveI: false,
    isPm: false,
    century: -1,
    wantCentury: false,
    wantXday: false,
    haveWday: false,
    haveYday: false,
    haveMon: false,
    haveMday: false,
    haveUweek: false,
    haveWweek: false,
    weekNo: 0,
  };
  const ok = parseFormat(st, fmt);
  if (!ok || (st.pos < s.length && !isSpace(s[st.pos]))) {
    // jq formats the two strings with %s: each is cut at a NUL it holds, not the message.
    throw new JqRuntimeError(`date "${s.split("\0", 1)[0]}" does not match format "${fmt.split("\0", 1)[0]}"`);
  }
  if (st.haveI && st.isPm) tm.hour += 12;
  if (st.century !== -1) {
    tm.year = st.wantCentury ? ((tm.year - 1900) % 100) + (st.century - 19) * 100 + 1900 : (st.century - 19) * 100 + 1900;
  }
  if (st.wantXday && !st.haveWday) {
    if (!(st.haveMon && st.haveMday) && st.haveYday) {
      const table = MON_YDAY[isLeap(tm.year) ? 1 : 0];
      let t = 0;
      while (t < 12 && table[t] <= tm.yday) t++;
      if (!st.haveMon) tm.mon = t - 1;
      if (!st.haveMday) tm.mday = tm.yday - table[t - 1] + 1;
      st.haveMon = true;
      st.haveMday = true;
    }
    dayOfTheWeek(tm);
  }
  if (st.wantXday && !st.haveYday) dayOfTheYear(tm);
  if ((st.haveUweek || st.haveWweek) && st.haveWday) {
    const saveWday = tm.wday;
    const saveMday = tm.mday;
    const saveMon = tm.mon;
    const wOffset = st.haveUweek ? 0 : 1;
    tm.mday = 1;
    tm.mon = 0;
    dayOfTheWeek(tm);
    if (st.haveMday) tm.mday = saveMday;
    if (st.haveMon) tm.mon = saveMon;
    if (!st.haveYday) tm.yday = ((7 - (tm.wday - wOffset)) % 7) + (st.weekNo - 1) * 7 + ((saveWday - wOffset + 7) % 7);
    if (!st.haveMday || !st.haveMon) {
      const table = MON_YDAY[isLeap(tm.year) ? 1 : 0];
      let t = 0;
      while (t < 12 && table[t] <= tm.yday) t++;
      if (!st.haveMon) tm.mon = t - 1;
      if (!st.haveMday) tm.mday = tm.yday - table[t - 1] + 1;
    }
    tm.wday = saveWday;
  }
  // jq's own fallbacks when the C library left the sentinels.
  if (tm.wday === 8 && tm.mday !== 0 && tm.mon >= 0 && tm.mon <= 11) dayOfTheWeek(tm);
  if (tm.yday === 367 && tm.mday !== 0 && tm.mon >= 0 && tm.mon <= 11) dayOfTheYear(tm);
  const out: unknown[] = tmToArray(tm);
  if (st.pos < s.length) out.push(s.slice(st.pos));
  return out;
}
