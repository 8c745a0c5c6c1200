/**
 * Text from agents and tenants (an approval's summary, an error message) shown in chat apps.
 * Each app parses markup of its own, so each has its escaping: after it, a summary is plain
 * text there — it cannot become a link with other text, a mention that pings a whole channel,
 * or formatting that hides part of it.
 */

/** Slack mrkdwn: `&`, `<` and `>` are the only control characters (`<!channel>`, `<url|text>`, `<@U1>`). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A zero-width space after `@` stops `@everyone`, `@here` and `@channel` from being read as mentions. */
const ZWSP = "\u200b";
const breakMentions = (text: string) => text.replace(/@/g, `@${ZWSP}`);

/** Markup that only counts at the start of a line: headings, quotes, lists. */
const LINE_START = /^(\s*)([#>+-]|\d+\.)/gm;

/**
 * Discord markdown: link syntax `[x](url)`, emphasis, spoilers, code and `<@id>` / `<#id>` /
 * `<t:…>` tags are backslash-escaped, as are headings, quotes and lists at a line's start, and
 * `@` mentions are broken (the message also sends `allowed_mentions: {parse: []}`).
 */
export function escapeDiscord(text: string): string {
  return breakMentions(text.replace(/[\\`*_~|[\]<]/g, (c) => `\\${c}`).replace(LINE_START, "$1\\$2"));
}

/** Teams' Adaptive Card markdown: link syntax, emphasis and code escaped, line-start markup too, `@` mentions broken. */
export function escapeTeams(text: string): string {
  return breakMentions(text.replace(/[\\`*_~[\]]/g, (c) => `\\${c}`).replace(LINE_START, "$1\\$2"));
}

/** At most `max` characters, on one line (chat apps give a summary one line; the rest is in the queue). */
export function clamp(text: string, max: number): string {
  const oneLine = text.replace(/[\r\n\t]+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
