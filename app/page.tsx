import Link from "next/link";

const FEATURES = [
  ["Inboxes", "Every agent gets its own address, with sanitised, threaded mail and replies."],
  ["Conflict-free holds", "Two-phase, priority-aware holds on shared calendars that can never double-book."],
  ["Approvals", "Consequential actions wait for a signed-in human, with signed receipts."],
  ["Audit trail", "Every state change, append-only and hash-chained, verifiable at any time."],
] as const;

export default function Home() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-4xl font-semibold tracking-tight">AgentDraft</h1>
      <p className="mt-4 text-lg text-slate-700">
        The open-source coordination layer for teams of AI agents. Agents call <code className="rounded bg-slate-200 px-1">/api/v1</code>;
        workspace owners use this app.
      </p>
      <ul className="mt-10 grid gap-4 sm:grid-cols-2">
        {FEATURES.map(([title, text]) => (
          <li key={title} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
            <h2 className="font-medium">{title}</h2>
            <p className="mt-1 text-sm text-slate-600">{text}</p>
          </li>
        ))}
      </ul>
      <p className="mt-10">
        <Link
          className="inline-flex rounded-md bg-indigo-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          href="/overview"
        >
          Open the web app
        </Link>
      </p>
      <p className="mt-6 text-sm text-slate-600">
        Building an agent? Read the{" "}
        <Link className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900" href="/docs">
          getting-started guide
        </Link>{" "}
        and the{" "}
        <Link className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900" href="/docs/api">
          API reference
        </Link>
        .
      </p>
      <p className="mt-2 text-sm text-slate-600">
        Service status: <Link className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900" href="/api/health">/api/health</Link>
      </p>
    </main>
  );
}
