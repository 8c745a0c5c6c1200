import type { ReactNode } from "react";

export const docLink = "font-medium text-indigo-700 underline underline-offset-2 hover:text-indigo-900";

const METHOD_STYLES: Record<string, string> = {
  GET: "bg-emerald-100 text-emerald-900",
  POST: "bg-indigo-100 text-indigo-900",
  PATCH: "bg-amber-100 text-amber-900",
  DELETE: "bg-red-100 text-red-900",
};

export function MethodBadge({ method }: { method: string }) {
  return <span className={`inline-block w-16 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-xs font-bold ${METHOD_STYLES[method] ?? "bg-slate-100"}`}>{method}</span>;
}

export function CodeBlock({ children, label }: { children: string; label?: string }) {
  return (
    <figure className="my-3">
      {label ? <figcaption className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{label}</figcaption> : null}
      {/* Focusable: a keyboard user scrolls a long line sideways with the arrow keys (axe: scrollable-region-focusable). */}
      <pre tabIndex={0} className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600">
        <code>{children}</code>
      </pre>
    </figure>
  );
}

export function Table({ head, children }: { head: string[]; children: ReactNode }) {
  return (
    <div tabIndex={0} role="region" aria-label={head.join(", ")} className="relative my-3 overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600">
      <table className="w-full border-collapse text-left text-sm">
        <thead>
          <tr className="border-b border-slate-300 text-xs uppercase tracking-wide text-slate-500">
            {head.map((h) => (
              <th key={h} scope="col" className="py-1.5 pr-4 font-medium">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="align-top">{children}</tbody>
      </table>
    </div>
  );
}

/** Text with `backtick` spans shown as code, as the OpenAPI descriptions write them. */
export function Prose({ text }: { text: string | undefined }) {
  if (!text) return null;
  return text.split(/(`[^`]+`)/g).map((part, i) =>
    part.startsWith("`") && part.endsWith("`") && part.length > 2 ? (
      <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.85em]">
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}
