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

/**
 * Discord markdown: every markup character is backslash-escaped (links `[x](url)`, emphasis,
 * spoilers, headings, quotes, code, and `<@id>` / `<#id>` / `<t:…>` tags), and `@` mentions are broken.
 */
export function escapeDiscord(text: string): string {
  return breakMentions(text.replace(/[\\`*_~|>#\-[\]()<:]/g, (c) => `\\${c}`));
}

/** Teams' Adaptive Card markdown: links, emphasis, lists, headings and code escaped; `<at>` tags and `@` mentions broken. */
export function escapeTeams(text: string): string {
  return breakMentions(text.replace(/[\\`*_~>#\-+[\]()!]/g, (c) => `\\${c}`).replace(/</g, "&lt;"));
}

/** At most `max` characters, on one line (chat apps give a summary one line; the rest is in the queue). */
export function clamp(text: string, max: number): string {
  const oneLine = text.replace(/[\r\n\t]+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
