/**
 * Reply shapes of the common mail clients, written to their real formats (attribution lines,
 * header blocks, quote markup and signature conventions as those clients emit them). The public
 * MIME corpus (`mime/`) holds bounces and parser edge cases but no conversational replies, so
 * these are composed here. Each has the text part and, where the client sends one, its HTML part.
 * `reply` is the new text a reader should see; `quoted` must not be in it.
 */
export type ReplyShape = { name: string; client: string; lang: string; subject?: string; text: string; html?: string; reply: string; quoted: string };

const gmailQuoteStyle = 'style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"';

export const REPLY_SHAPES: ReplyShape[] = [
  {
    name: "gmail-en",
    client: "Gmail",
    lang: "en",
    text: "Sounds good, see you Thursday.\n\nOn Mon, Nov 30, 2026 at 4:12 PM Bob Smith <bob@example.com> wrote:\n\n> Can we meet Thursday at 3pm to go over the staging plan?\n>\n> Bob\n",
    html: `<div dir="ltr">Sounds good, see you Thursday.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Nov 30, 2026 at 4:12 PM Bob Smith &lt;<a href="mailto:bob@example.com">bob@example.com</a>&gt; wrote:<br></div><blockquote class="gmail_quote" ${gmailQuoteStyle}><div dir="ltr">Can we meet Thursday at 3pm to go over the staging plan?<div><br></div><div>Bob</div></div></blockquote></div>`,
    reply: "Sounds good, see you Thursday.",
    quoted: "staging plan",
  },
  {
    name: "gmail-en-wrapped-attribution",
    client: "Gmail",
    lang: "en",
    text: "Yes, the numbers are final.\n\nOn Tue, Dec 1, 2026 at 9:03 AM Margaret Featherstonehaugh-Williams <\nmargaret.featherstonehaugh@example.com> wrote:\n\n> Are these the final numbers for the board deck?\n",
    reply: "Yes, the numbers are final.",
    quoted: "board deck",
  },
  {
    name: "gmail-de",
    client: "Gmail",
    lang: "de",
    text: "Passt, ich buche den Raum.\n\nAm Mo., 30. Nov. 2026 um 16:12 Uhr schrieb Jonas Weber <jonas@example.de>:\n\n> Können wir uns Donnerstag um 15 Uhr treffen?\n",
    html: `<div dir="ltr">Passt, ich buche den Raum.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Am Mo., 30. Nov. 2026 um 16:12&nbsp;Uhr schrieb Jonas Weber &lt;<a href="mailto:jonas@example.de">jonas@example.de</a>&gt;:<br></div><blockquote class="gmail_quote" ${gmailQuoteStyle}><div dir="ltr">Können wir uns Donnerstag um 15 Uhr treffen?</div></blockquote></div>`,
    reply: "Passt, ich buche den Raum.",
    quoted: "Donnerstag um 15 Uhr",
  },
  {
    name: "gmail-fr",
    client: "Gmail",
    lang: "fr",
    text: "D'accord, je m'en occupe.\n\nLe lun. 30 nov. 2026 à 16:12, Claire Martin <claire@example.fr> a écrit :\n\n> Peux-tu relancer le fournisseur avant vendredi ?\n",
    html: `<div dir="ltr">D'accord, je m'en occupe.</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">Le&nbsp;lun. 30 nov. 2026 à&nbsp;16:12, Claire Martin &lt;<a href="mailto:claire@example.fr">claire@example.fr</a>&gt; a écrit&nbsp;:<br></div><blockquote class="gmail_quote" ${gmailQuoteStyle}><div dir="ltr">Peux-tu relancer le fournisseur avant vendredi ?</div></blockquote></div>`,
    reply: "D'accord, je m'en occupe.",
    quoted: "relancer le fournisseur",
  },
  {
    name: "gmail-es",
    client: "Gmail",
    lang: "es",
    text: "Perfecto, lo reviso mañana.\n\nEl lun, 30 nov 2026 a las 16:12, Lucía García (<lucia@example.es>) escribió:\n\n> ¿Puedes revisar el contrato antes del viernes?\n",
    reply: "Perfecto, lo reviso mañana.",
    quoted: "revisar el contrato",
  },
  {
    name: "gmail-nl",
    client: "Gmail",
    lang: "nl",
    text: "Prima, ik zet het in de agenda.\n\nOp ma 30 nov 2026 om 16:12 schreef Daan de Vries <daan@example.nl>:\n\n> Zullen we donderdag om drie uur afspreken?\n",
    reply: "Prima, ik zet het in de agenda.",
    quoted: "donderdag om drie uur",
  },
  {
    name: "gmail-ja",
    client: "Gmail",
    lang: "ja",
    text: "承知しました。木曜日に伺います。\n\n2026年11月30日(月) 16:12 山田太郎 <taro@example.jp>:\n\n> 木曜日の15時に打ち合わせできますか？\n",
    reply: "承知しました。木曜日に伺います。",
    quoted: "打ち合わせ",
  },
  {
    name: "outlook-en-header-block",
    client: "Outlook (desktop / web)",
    lang: "en",
    text: "Approved, go ahead.\n\nThanks,\nAnna\n\n________________________________\nFrom: Bob Smith <bob@example.com>\nSent: Monday, November 30, 2026 4:12 PM\nTo: Anna Meyer <anna@example.org>\nSubject: Budget for Q1\n\nHi Anna, can you approve the Q1 budget?\n",
    html: `<div dir="ltr"><div style="font-family:Calibri,Arial,Helvetica,sans-serif;font-size:12pt;color:rgb(0,0,0)">Approved, go ahead.</div><div style="font-family:Calibri,Arial,Helvetica,sans-serif;font-size:12pt;color:rgb(0,0,0)"><br></div><div style="font-family:Calibri,Arial,Helvetica,sans-serif;font-size:12pt;color:rgb(0,0,0)">Thanks,<br>Anna</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>From:</b> Bob Smith &lt;bob@example.com&gt;<br><b>Sent:</b> Monday, November 30, 2026 4:12 PM<br><b>To:</b> Anna Meyer &lt;anna@example.org&gt;<br><b>Subject:</b> Budget for Q1</font><div>&nbsp;</div></div><div>Hi Anna, can you approve the Q1 budget?</div></div>`,
    reply: "Approved, go ahead.\n\nThanks,\nAnna",
    quoted: "approve the Q1 budget",
  },
  {
    name: "outlook-en-original-message",
    client: "Outlook (classic desktop)",
    lang: "en",
    text: "I'll send the signed copy tomorrow.\n\n-----Original Message-----\nFrom: Bob Smith [mailto:bob@example.com]\nSent: Monday, November 30, 2026 4:12 PM\nTo: Anna Meyer\nSubject: Contract\n\nPlease send the signed contract.\n",
    reply: "I'll send the signed copy tomorrow.",
    quoted: "Please send the signed contract",
  },
  {
    name: "outlook-de-header-block",
    client: "Outlook (desktop)",
    lang: "de",
    text: "Erledigt, die Rechnung ist raus.\n\nViele Grüße\nJonas\n\nVon: Anna Meyer <anna@example.org>\nGesendet: Montag, 30. November 2026 16:12\nAn: Jonas Weber <jonas@example.de>\nBetreff: Rechnung November\n\nKannst du die Rechnung für November schicken?\n",
    reply: "Erledigt, die Rechnung ist raus.\n\nViele Grüße\nJonas",
    quoted: "Rechnung für November schicken",
  },
  {
    name: "outlook-fr-header-block",
    client: "Outlook (desktop)",
    lang: "fr",
    text: "C'est validé de mon côté.\n\nDe : Claire Martin <claire@example.fr>\nEnvoyé : lundi 30 novembre 2026 16:12\nÀ : Paul Durand <paul@example.fr>\nObjet : Devis\n\nPeux-tu valider le devis ?\n",
    reply: "C'est validé de mon côté.",
    quoted: "valider le devis",
  },
  {
    name: "apple-mail-en",
    client: "Apple Mail (macOS / iOS)",
    lang: "en",
    text: "Booked the room.\n\nSent from my iPhone\n\n> On 30 Nov 2026, at 16:12, Bob Smith <bob@example.com> wrote:\n>\n> Can you book the big room for Thursday?\n",
    html: `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto"><div dir="ltr">Booked the room.</div><div dir="ltr"><br></div><div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br><blockquote type="cite">On 30 Nov 2026, at 16:12, Bob Smith &lt;bob@example.com&gt; wrote:<br><br></blockquote></div><blockquote type="cite"><div dir="ltr">Can you book the big room for Thursday?</div></blockquote></body></html>`,
    reply: "Booked the room.",
    quoted: "book the big room",
  },
  {
    name: "apple-mail-de",
    client: "Apple Mail (macOS)",
    lang: "de",
    text: "Danke, passt so.\n\n> Am 30.11.2026 um 16:12 schrieb Jonas Weber <jonas@example.de>:\n>\n> Hier ist der Entwurf.\n",
    reply: "Danke, passt so.",
    quoted: "Hier ist der Entwurf",
  },
  {
    name: "thunderbird-en-signature",
    client: "Thunderbird",
    lang: "en",
    text: "Merged, thanks for the review.\n\n-- \nDana Kim\nRelease engineering, Example Corp\n+1 555 0100\n\nOn 11/30/26 4:12 PM, Bob Smith wrote:\n> Looks good to me, ship it.\n",
    reply: "Merged, thanks for the review.",
    quoted: "ship it",
  },
  {
    name: "mobile-android-es",
    client: "Gmail for Android",
    lang: "es",
    text: "Voy en camino.\n\nEnviado desde mi teléfono Android\n\nEl lun., 30 de noviembre de 2026 16:12, Lucía García <lucia@example.es> escribió:\n\n> ¿Llegas a las cuatro?\n",
    reply: "Voy en camino.",
    quoted: "Llegas a las cuatro",
  },
  {
    // Answers between quoted lines: the quotes are the context, so the text stays whole.
    name: "inline-reply",
    client: "Thunderbird / mutt (interleaved)",
    lang: "en",
    text: "Bob Smith <bob@example.com> wrote:\n> Can you do Thursday?\n\nYes.\n\n> And bring the slides?\n\nSure, I'll bring them.\n\nAnna\n",
    reply: "Bob Smith <bob@example.com> wrote:\n> Can you do Thursday?\n\nYes.\n\n> And bring the slides?\n\nSure, I'll bring them.\n\nAnna",
    quoted: "\u0000",
  },
  {
    // A forward's header block looks like a reply's: the subject says it is the content.
    name: "outlook-forward",
    client: "Outlook (desktop)",
    lang: "en",
    subject: "FW: Invoice 42",
    text: "See below.\n\n________________________________\nFrom: Bob Smith <bob@example.com>\nSent: Monday, November 30, 2026 4:12 PM\nTo: Anna Meyer <anna@example.org>\nSubject: Invoice 42\n\nPlease pay invoice 42 by Friday.\n",
    reply: "See below.\n\n________________________________\nFrom: Bob Smith <bob@example.com>\nSent: Monday, November 30, 2026 4:12 PM\nTo: Anna Meyer <anna@example.org>\nSubject: Invoice 42\n\nPlease pay invoice 42 by Friday.",
    quoted: "\u0000",
  },
  {
    name: "apple-mail-forward",
    client: "Apple Mail (macOS)",
    lang: "en",
    text: "Begin forwarded message:\n\nFrom: Bob Smith <bob@example.com>\nSubject: Invoice 42\nDate: 30 November 2026 at 16:12:00 CET\nTo: Anna Meyer <anna@example.org>\n\nPlease pay invoice 42 by Friday.\n",
    reply: "Begin forwarded message:\n\nFrom: Bob Smith <bob@example.com>\nSubject: Invoice 42\nDate: 30 November 2026 at 16:12:00 CET\nTo: Anna Meyer <anna@example.org>\n\nPlease pay invoice 42 by Friday.",
    quoted: "\u0000",
  },
  {
    // Nothing quoted: the text stays whole (a "Regards," sign-off is taken for a signature).
    name: "no-quote",
    client: "any",
    lang: "en",
    text: "Hello,\n\nPlease find the report for November attached.\n\nRegards,\nAnna\n",
    reply: "Hello,\n\nPlease find the report for November attached.",
    quoted: "Regards",
  },
];
