import type { serializeMessage } from "@/lib/domains/mail/serialize";
import { Badge } from "../_components/ui";

type Message = ReturnType<typeof serializeMessage>;

const STATUS_TONE = { received: "slate", captured: "indigo", queued: "amber", sent: "green", delivered: "green", bounced: "red", failed: "red", pending_approval: "amber", discarded: "slate" } as const;
const STATUS_HINT: Partial<Record<Message["status"], string>> = {
  captured: "kept here, not sent: no RESEND_API_KEY",
  queued: "waiting for the delivery job",
  pending_approval: "waiting for a person's approval; sent only once approved",
  discarded: "denied or expired before approval: never sent",
};

export function StatusBadge({ status }: { status: Message["status"] }) {
  return (
    <span title={STATUS_HINT[status]}>
      <Badge tone={STATUS_TONE[status]}>{status}</Badge>
    </span>
  );
}

const SYSTEM_LABEL_TONE: Record<string, "indigo" | "green" | "amber" | "red"> = { unread: "indigo", sent: "green", draft: "amber", spam: "red" };

/** A message's or thread's labels as chips: system labels coloured, the others plain. */
export function LabelChips({ labels }: { labels: string[] }) {
  if (!labels.length) return null;
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Labels" data-testid="labels">
      {labels.map((l) => (
        <li key={l}>
          <Badge tone={SYSTEM_LABEL_TONE[l] ?? "slate"}>{l}</Badge>
        </li>
      ))}
    </ul>
  );
}

/** What sanitising removed and what looks suspicious, said plainly; nothing is hidden from the reader. */
export function SecurityFlags({ m }: { m: Message }) {
  const s = m.security;
  const removed = [
    s.scripts_removed && "scripts",
    s.styles_removed && "styles",
    s.hidden_text_removed && "hidden text",
    s.forms_removed && "forms",
    s.iframes_removed && "iframes",
    s.remote_images_removed > 0 && `${s.remote_images_removed} remote image${s.remote_images_removed === 1 ? "" : "s"}`,
    s.zero_width_removed > 0 && `${s.zero_width_removed} invisible character${s.zero_width_removed === 1 ? "" : "s"}`,
  ].filter(Boolean) as string[];
  const auth = ["spf", "dkim", "dmarc"].map((k) => [k, m.headers_of_note[k]] as const).filter(([, v]) => v);
  return (
    <div className="space-y-2 text-sm" data-testid="security-flags">
      <div className="flex flex-wrap gap-1.5">
        {s.injection_signals.length ? <Badge tone="red">{s.injection_signals.length} prompt-injection signal{s.injection_signals.length === 1 ? "" : "s"}</Badge> : null}
        {s.auth_failed ? <Badge tone="red">sender authentication failed</Badge> : null}
        {m.automated ? <Badge tone="amber">automated: {m.automated_reasons.join(", ")}</Badge> : null}
        {removed.length ? <Badge tone="slate">removed: {removed.join(", ")}</Badge> : null}
        {auth.map(([k, v]) => (
          <Badge key={k} tone={v === "pass" ? "green" : v === "none" || v === "neutral" ? "slate" : "red"}>
            {k.toUpperCase()} {v}
          </Badge>
        ))}
        {auth.length ? (
          <span className="text-xs text-slate-500">checked by {m.headers_of_note.auth_checked_by}</span>
        ) : m.direction === "inbound" ? (
          <Badge tone="slate">sender not authenticated</Badge>
        ) : null}
      </div>
      {s.injection_signals.length ? (
        <ul className="list-disc space-y-1 pl-5 text-red-900" aria-label="Prompt-injection signals">
          {s.injection_signals.map((sig, i) => (
            <li key={i}>
              <span className="font-medium">{sig.signal}</span> in {sig.where}: <q className="break-words">{sig.excerpt}</q>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The sanitised HTML, shown in a sandboxed frame: no scripts, no same-origin access, and a
 * content policy that loads nothing from the network, even if sanitising had missed something.
 */
export function MessageBody({ m }: { m: Message }) {
  if (!m.html_sanitized) {
    return <pre className="whitespace-pre-wrap break-words rounded bg-slate-50 p-3 font-sans text-sm text-slate-900">{m.text || "(empty)"}</pre>;
  }
  const doc = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"><style>body{font:14px/1.5 system-ui,sans-serif;color:#0f172a;margin:12px;word-wrap:break-word}</style></head><body>${m.html_sanitized}</body></html>`;
  return (
    <div className="space-y-2">
      <iframe title={`Message: ${m.subject}`} sandbox="" srcDoc={doc} referrerPolicy="no-referrer" className="h-56 w-full resize-y rounded border border-slate-200 bg-white" />
      <details>
        <summary className="cursor-pointer text-xs text-slate-600">Plain text</summary>
        <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-50 p-3 font-sans text-sm text-slate-900">{m.text}</pre>
      </details>
    </div>
  );
}
