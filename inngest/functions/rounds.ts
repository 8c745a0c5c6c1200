/**
 * Inngest cron fires at most once a minute; webhooks need seconds. A run therefore works in
 * this many rounds, a pause of ROUND_PAUSE apart, covering about a minute.
 */
export const ROUNDS = 6;
export const ROUND_PAUSE = "10s";
