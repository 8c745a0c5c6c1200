#!/usr/bin/env node
// Prints how many seconds to move the clock: to a random instant within ±10 years of now
// (MOVED_CLOCK_YEARS sets the span), then on to two minutes before the first daylight-saving change
// in the zone after it, so the run crosses one. `node .ci/clock-offset.mjs ZONE` picks; the run
// prints the offset, and MOVED_CLOCK_OFFSET=<seconds> replays it.
const [zone = "Europe/Berlin"] = process.argv.slice(2);
const YEARS = Number(process.env.MOVED_CLOCK_YEARS ?? 10);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const offsetAt = (ms) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(ms));
  return parts.find((p) => p.type === "timeZoneName").value;
};
const now = Date.now();
// At least a day away from now either way: a run at today's date is what npm test already is.
const days = Math.max(1, Math.random() * YEARS * 365.25) * (Math.random() < 0.5 ? -1 : 1);
let t = now + days * DAY;
t -= t % HOUR;
const first = offsetAt(t);
for (let i = 0; i < 24 * 400; i++, t += HOUR) {
  if (offsetAt(t + HOUR) !== first) {
    // The change lies in (t, t + 1 h]: find its minute.
    let lo = t, hi = t + HOUR;
    while (hi - lo > 60_000) { const mid = lo + Math.floor((hi - lo) / 2 / 60_000) * 60_000; if (offsetAt(mid) === first) lo = mid; else hi = mid; }
    console.log(Math.round((hi - 120_000 - now) / 1000));
    process.exit(0);
  }
}
// A zone without daylight saving: the random instant itself.
console.log(Math.round((t - now) / 1000));
