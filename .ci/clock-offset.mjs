#!/usr/bin/env node
// Prints how many seconds to move the clock so that it stands two minutes before the first
// daylight-saving change in the zone that is at least `days` days from now.
const [zone = "Europe/Berlin", days = "366"] = process.argv.slice(2);
const offsetAt = (ms) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(ms));
  return parts.find((p) => p.type === "timeZoneName").value;
};
const HOUR = 3_600_000;
let t = Date.now() + Number(days) * 86_400_000;
t -= t % HOUR;
const first = offsetAt(t);
for (let i = 0; i < 24 * 400; i++, t += HOUR) {
  if (offsetAt(t + HOUR) !== first) {
    // The change lies in (t, t + 1 h]: find its minute.
    let lo = t, hi = t + HOUR;
    while (hi - lo > 60_000) { const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000; if (offsetAt(mid) === first) lo = mid; else hi = mid; }
    console.log(Math.round((hi - 120_000 - Date.now()) / 1000));
    process.exit(0);
  }
}
console.error(`${zone} has no daylight-saving change in the 400 days after ${days} days from now`);
process.exit(1);
