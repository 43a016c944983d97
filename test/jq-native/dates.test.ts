import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { gmtime, localtime, mktime, strflocaltime, strftime, strptime, timegm } from "../../src/jq/native/dates.js";
import { errorOf } from "../support/errors.js";


const ISO = "%Y-%m-%dT%H:%M:%SZ";
/** The process zone is UTC in CI; the local-time assertions only hold there. */
const utcProcess = new Date(0).getTimezoneOffset() === 0 && new Date(Date.UTC(2015, 6, 1)).getTimezoneOffset() === 0;

describe("jq 1.7.1 conformance cases", () => {
  test("strftime of broken-down times and of numbers", () => {
    assert.equal(strftime([2015, 2, 5, 23, 51, 47, 4, 63], ISO), "2015-03-05T23:51:47Z");
    assert.equal(strftime(1435677542.822351, "%A, %B %d, %Y"), "Tuesday, June 30, 2015");
    assert.equal(strftime(1435677542.822351, "%A, %B %e, %Y"), "Tuesday, June 30, 2015");
  });
  test("gmtime, strptime, mktime (todate/fromdate)", () => {
    assert.deepEqual(gmtime(1425599507), [2015, 2, 5, 23, 51, 47, 4, 63]);
    assert.deepEqual(strptime("2015-03-05T23:51:47Z", ISO), [2015, 2, 5, 23, 51, 47, 4, 63]);
    assert.equal(mktime(strptime("2015-03-05T23:51:47Z", ISO)), 1425599507);
  });
  test("invalid broken-down times", () => {
    assert.equal(errorOf(() => strftime(["a", 1, 2, 3, 4, 5, 6, 7], ISO)), "strftime/1 requires parsed datetime inputs");
    assert.equal(errorOf(() => strflocaltime(["a", 1, 2, 3, 4, 5, 6, 7], ISO)), "strflocaltime/1 requires parsed datetime inputs");
    assert.equal(errorOf(() => mktime(["a", 1, 2, 3, 4, 5, 6, 7])), "mktime requires parsed datetime inputs");
  });
  test("day-of-week and day-of-year over 67 years (optional.test)", () => {
    const base = mktime(strptime("1970-03-01T01:02:03Z", ISO));
    for (let day = 0; day < 365 * 67; day += 97) {
      const t = base + 86400 * day;
      const bt = strptime(strftime(t, ISO), ISO);
      assert.deepEqual(bt, gmtime(t));
      assert.equal(mktime(bt), t);
    }
    const last = base + 86400 * (365 * 67 - 1);
    assert.deepEqual(strptime(strftime(last, ISO), ISO), [2037, 1, 11, 1, 2, 3, 3, 41]);
  });
});

describe("gmtime / localtime", () => {
  test("fractional seconds are kept the way jq computes them", () => {
    assert.deepEqual(gmtime(1425599507.9), [2015, 2, 5, 23, 51, 47.90000009536743, 4, 63]);
    // Truncation toward zero, then the fraction above floor(t): jq's quirk for negative times.
    assert.deepEqual(gmtime(-1.5), [1969, 11, 31, 23, 59, 59.5, 3, 364]);
    assert.deepEqual(gmtime(0), [1970, 0, 1, 0, 0, 0, 4, 0]);
    assert.deepEqual(gmtime(951782400), [2000, 1, 29, 0, 0, 0, 2, 59]);
    assert.deepEqual(gmtime(-62135596800), [1, 0, 1, 0, 0, 0, 1, 0]);
    assert.deepEqual(gmtime(253402300799), [9999, 11, 31, 23, 59, 59, 5, 364]);
  });
  test("errors", () => {
    assert.equal(errorOf(() => gmtime("2015")), "gmtime() requires numeric inputs");
    assert.equal(errorOf(() => localtime(null)), "localtime() requires numeric inputs");
    assert.equal(errorOf(() => gmtime(1e300)), "error converting number of seconds since epoch to datetime");
    assert.equal(errorOf(() => gmtime(Infinity)), "error converting number of seconds since epoch to datetime");
  });
  test("localtime follows the process zone", { skip: !utcProcess && "process time zone is not UTC" }, () => {
    assert.deepEqual(localtime(1425599507), gmtime(1425599507));
    assert.equal(strflocaltime(1425599507, "%H:%M %Z"), "23:51 UTC");
  });
});

describe("mktime / timegm", () => {
  test("normalizes out-of-range fields like timegm(3)", () => {
    assert.equal(mktime([2015, 14, 40, 30, 70, 70, 0, 0]), 1460272270);
    assert.equal(mktime([2024, 1, 29, 0, 0, 0, 0, 0]), 1709164800);
    assert.equal(mktime([2015, 2, 5, 23, 51, 47.9, 4, 63]), 1425599507);
    assert.equal(mktime([1969, 11, 31, 0, 0, 0, 0, 0]), -86400);
    assert.equal(timegm({ year: 1970, mon: 0, mday: 1, hour: 0, min: 0, sec: 0 }), 0);
  });
  test("fewer than eight numbers: the rest are 0 (jq 1.8)", () => {
    assert.equal(mktime([2015, 2, 5]), 1425513600);
    assert.equal(mktime([2015, 2, 5, 23, 51, 47]), 1425599507);
    assert.equal(mktime([2024]), 1703980800);
    assert.equal(mktime([]), -2209075200);
  });
  test("errors, including the -1 quirk and years past C's int", () => {
    assert.equal(errorOf(() => mktime("2015")), "mktime requires array inputs");
    assert.equal(errorOf(() => mktime([2015, "a"])), "mktime requires parsed datetime inputs");
    assert.equal(errorOf(() => mktime([2015, NaN])), "mktime requires parsed datetime inputs");
    assert.equal(errorOf(() => mktime([1969, 11, 31, 23, 59, 59, 0, 0])), "invalid gmtime representation");
    assert.equal(errorOf(() => mktime([2147485547, 0, 1e10])), "invalid gmtime representation");
    assert.equal(mktime([1e20]), 67768036160054400);
  });
});

describe("strftime conversions (glibc, C locale)", () => {
  test("the common conversions at the epoch", { skip: !utcProcess && "%s and %Z depend on the process zone" }, () => {
    assert.equal(
      strftime(0, "%Z|%z|%c|%s|%e|%j|%G-%V|%u|%w|%p|%I|%D|%T|%F|%y|%C|%h|%n|%t|%k|%l|%r|%R|%x|%X|%U|%W|%g|%P|%+|%%"),
      "GMT|+0000|Thu Jan  1 00:00:00 1970|0| 1|001|1970-01|4|4|AM|12|01/01/70|00:00:00|1970-01-01|70|19|Jan|\n|\t| 0|12|12:00:00 AM|00:00|01/01/70|00:00:00|00|00|70|am|%+|%",
    );
  });
  test("week numbers, 12-hour clock, years outside 1000..9999, out-of-range fields", () => {
    assert.equal(strftime([2015, 2, 5, 23, 51, 47, 4, 63], "%a %j %U %G %V %C %g %e %k %l %I %p %P %+"), "Thu 064 09 2015 10 20 15  5 23 11 11 PM pm %+");
    assert.equal(strftime(1e10, "%c"), "Sat Nov 20 17:46:40 2286");
    assert.deepEqual(
      [
        [99, 0, 1, 0, 0, 0, 0, 0],
        [5, 0, 1, 0, 0, 0, 0, 0],
        [-5, 0, 1, 0, 0, 0, 0, 0],
        [2015, 12, 1, 0, 0, 0, 7, 400],
      ].map((bt) => strftime(bt, "%Y|%C|%y|%G|%g|%a|%b|%j")),
      // Normalized as timegm does (jq 1.8): the day of week and year are recomputed, month 12 is next January.
      ["99|0|99|99|99|Thu|Jan|001", "5|0|05|4|04|Sat|Jan|001", "-5|-1|95|-6|94|Sun|Jan|001", "2016|20|16|2015|15|Fri|Jan|001"],
    );
  });
  test("GNU flags and widths", () => {
    assert.equal(
      strftime([2015, 2, 5, 3, 4, 5, 4, 63], "%-d|%_m|%e|%-j|%^a|%#b|%10Y|%_5d|%05e|%Ey|%Od|%-I"),
      "5| 3| 5|64|THU|MAR|0000002015|    5|00005|15|05|3",
    );
  });
  test("a Pod's creationTimestamp round trip", () => {
    const created = "2024-05-17T08:30:00Z";
    const t = mktime(strptime(created, ISO));
    assert.equal(t, 1715934600);
    assert.equal(strftime(t, ISO), created);
    assert.equal(strftime(t + 3600 * 24 * 30, "%Y-%m-%d"), "2024-06-16");
  });
  test("errors", () => {
    assert.equal(errorOf(() => strftime("2015", ISO)), "strftime/1 requires parsed datetime inputs");
    assert.equal(errorOf(() => strftime([1, 2], 1)), "strftime/1 requires a string format");
    assert.equal(strftime([2015, 2, 5, 23, 51, 47], ISO), "2015-03-05T23:51:47Z");
    assert.equal(strftime([2024, 13, 40], "%F %A %j"), "2025-03-12 Wednesday 071");
    assert.equal(strftime([1e20], "%Y %A %j %d"), "-2147481750 Tuesday 365 31");
    assert.equal(errorOf(() => strflocaltime({}, ISO)), "strflocaltime/1 requires parsed datetime inputs");
    assert.equal(strftime(0, ""), "");
    assert.equal(errorOf(() => strftime("x", 1)), "strftime/1 requires parsed datetime inputs");
  });
});

describe("strptime (glibc conversions, jq's wday/yday rules)", () => {
  const cases: [string, string, unknown[]][] = [
    ["12:34", "%H:%M", [1900, 0, 0, 12, 34, 0, 8, 367]],
    ["2015 64", "%Y %j", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["Mon 2015", "%a %Y", [2015, 0, 0, 0, 0, 0, 1, -1]],
    ["15-3-5", "%y-%m-%d", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["70-1-1", "%y-%m-%d", [1970, 0, 1, 0, 0, 0, 4, 0]],
    ["68-1-1", "%y-%m-%d", [2068, 0, 1, 0, 0, 0, 0, 0]],
    ["2015-03-05 11:51:47 PM", "%Y-%m-%d %I:%M:%S %p", [2015, 2, 5, 23, 51, 47, 4, 63]],
    ["  2015-3-5", "%Y-%m-%d", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["2015-03-05", "%F", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["23:51:47", "%T", [1900, 0, 0, 23, 51, 47, 8, 367]],
    ["March 5, 2015", "%B %e, %Y", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["mar 5 2015", "%b %d %Y", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["2015-3-5 UTC", "%Y-%m-%d %Z", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["20150305", "%Y%m%d", [2015, 2, 5, 0, 0, 0, 4, 63]],
    ["2015-03-05T23:51:47+01:00", "%Y-%m-%dT%H:%M:%S%z", [2015, 2, 5, 23, 51, 47, 4, 63]],
    ["Thu Mar  5 23:51:47 2015", "%c", [2015, 2, 5, 23, 51, 47, 4, 63]],
    ["12/31/99", "%D", [1999, 11, 31, 0, 0, 0, 5, 364]],
    ["60", "%S", [1900, 0, 0, 0, 0, 60, 8, 367]],
    ["2015-02-30", "%Y-%m-%d", [2015, 1, 30, 0, 0, 0, 1, 60]],
    ["2015 10", "%Y %U", [2015, 0, 0, 0, 0, 0, 3, -1]],
    ["20 15", "%C %y", [2015, 0, 0, 0, 0, 0, 3, -1]],
    ["2015 10 4", "%Y %U %w", [2015, 2, 12, 0, 0, 0, 4, 70]],
    ["10 March 2015 x", "%d %B %Y", [2015, 2, 10, 0, 0, 0, 2, 68, " x"]],
    ["2015-03-05T23:51:47Z ", ISO, [2015, 2, 5, 23, 51, 47, 4, 63, " "]],
  ];
  test("conversions and computed fields", () => {
    for (const [s, fmt, want] of cases) assert.deepEqual(strptime(s, fmt), want, `${s} / ${fmt}`);
  });
  test("%s reads epoch seconds in the process zone", { skip: !utcProcess && "process time zone is not UTC" }, () => {
    assert.deepEqual(strptime("1425599507", "%s"), [2015, 2, 5, 23, 51, 47, 4, 63]);
  });
  test("E and O modifiers only before the conversions glibc gives an alternative form", () => {
    assert.deepEqual(strptime("2015 05 23", "%EY %Od %OH"), [2015, 0, 5, 23, 0, 0, 1, 4]);
    assert.deepEqual(strptime("Mar", "%Ob"), [1900, 2, 0, 0, 0, 0, 3, 58]);
    for (const [s, fmt] of [
      ["15", "%Ey"],
      ["Mar", "%Eb"],
      ["05", "%Ed"],
      ["2015", "%OY"],
      ["4", "%Ou"],
      ["+0100", "%Oz"],
      ["05", "%EOd"],
      ["05", "%OOd"],
    ]) {
      assert.equal(errorOf(() => strptime(s, fmt)), `date "${s}" does not match format "${fmt}"`);
    }
  });
  test("mismatches and wrong types", () => {
    for (const [s, fmt] of [
      ["2015-03-05T23:51:47.123Z", ISO],
      ["2015-03-05x", "%Y-%m-%d"],
      ["2015-13-05", "%Y-%m-%d"],
      ["62", "%S"],
      ["", "%Y"],
      ["2015", "%Q"],
    ]) {
      assert.equal(errorOf(() => strptime(s, fmt)), `date "${s}" does not match format "${fmt}"`);
    }
    assert.equal(errorOf(() => strptime(1, ISO)), "strptime/1 requires string inputs and arguments");
    assert.equal(errorOf(() => strptime("2015", null)), "strptime/1 requires string inputs and arguments");
  });
});

/** Runs `fn` with the process time zone set to `tz` (Node rereads TZ when it is assigned). */
function inZone<T>(tz: string, fn: () => T): T {
  const saved = process.env["TZ"];
  process.env["TZ"] = tz;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env["TZ"];
    else process.env["TZ"] = saved;
  }
}

/** Whether Node has the tz database's zones (full ICU). */
const zones = (() => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York" }).resolvedOptions().timeZone === "America/New_York";
  } catch {
    return false;
  }
})();

// Expected values are glibc's (strftime(3), localtime_r(3)) for the same instants and zones.
describe("time zones as glibc's localtime and strftime see them", { skip: !zones && "Node has no time zone data" }, () => {
  const winter = 1425599507; // 2015-03-05T23:51:47Z
  const summer = 1436000000; // 2015-07-04T08:53:20Z
  test("%z and %Z across zones and daylight saving time", () => {
    const rows = ["America/New_York", "Asia/Kolkata", "Europe/London", "America/Sao_Paulo"].map((tz) =>
      inZone(tz, () => [strflocaltime(winter, "%z %Z|%_5z|%05z"), strflocaltime(summer, "%z %Z")]),
    );
    assert.deepEqual(rows, [
      ["-0500 EST|    -  500|0000-00500", "-0400 EDT"],
      ["+0530 IST|    +  530|0000+00530", "+0530 IST"],
      ["+0000 GMT|    +    0|0000+00000", "+0100 BST"],
      // A zone with no abbreviation: the tz database's numeric name.
      ["-0300 -03|    -  300|0000-00300", "-0300 -03"],
    ]);
  });
  test("strftime formats a UTC time (zone GMT); %s reads its fields as standard local time", () => {
    assert.equal(inZone("America/New_York", () => strftime([2015, 2, 5, 23, 51, 47, 4, 63], "%Z %z %s")), "GMT +0000 1425617507");
    assert.equal(inZone("Asia/Kolkata", () => strftime([2015, 2, 5, 23, 51, 47, 4, 63], "%s")), "1425579707");
  });
  test("localtime beyond Date's range: the zone's yearly rule, local mean time before the first transition", () => {
    assert.deepEqual(inZone("America/New_York", () => [localtime(1e14), localtime(-1e14), localtime(4e15)]), [
      [3170843, 10, 7, 4, 46, 40, 6, 310],
      [-3166904, 1, 24, 9, 17, 18, 1, 54],
      [126756924, 0, 11, 2, 6, 40, 2, 10],
    ]);
    assert.deepEqual(inZone("Australia/Sydney", () => localtime(-1e14)), [-3166904, 1, 25, 0, 18, 12, 2, 55]);
  });
  test("strptime's %s: digits only, then localtime", () => {
    assert.deepEqual(inZone("Australia/Sydney", () => strptime("1425599507", "%s")), [2015, 2, 6, 10, 51, 47, 5, 64]);
    for (const s of [" 1425599507", "-5"]) assert.equal(errorOf(() => strptime(s, "%s")), `date "${s}" does not match format "%s"`);
  });
});

describe("strftime padding flags as glibc's", () => {
  test("the last of _ - 0 wins; - with a width pads with spaces; text conversions take widths", () => {
    const bt = [2015, 2, 5, 23, 51, 47, 4, 63];
    assert.equal(strftime(bt, "%_-5d|%-_5d|%-5d|%10%|%5n|%^P|%#p|%5q|%-10Z"), "    5|    5|    5|         %|    \n|pm|pm|  %5q|       GMT");
  });
});
