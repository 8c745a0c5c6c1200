import type { Metadata } from "next";
import Link from "next/link";
import { buildOpenApiDocument } from "@/lib/composition/openapi-document";
import { operationsOf, schemasOf, type Field, type OperationView } from "@/lib/composition/docs/openapi-view";
import { CodeBlock, MethodBadge, Prose, Table, docLink } from "../_components";

export const metadata: Metadata = { title: "API reference" };
export const dynamic = "force-static";

/** Request fields mark what is required; response fields are always present (null where the type says). */
function FieldRows({ fields, request = false }: { fields: Field[]; request?: boolean }) {
  return fields.map((f) => (
    <tr key={f.name} className="border-b border-slate-100">
      <td className="py-1.5 pr-4 font-mono text-xs whitespace-nowrap" style={{ paddingLeft: `${f.depth * 0.9}rem` }}>
        {f.name}
        {request && f.required ? <span className="ml-1 font-sans text-[0.65rem] font-semibold uppercase text-red-700">required</span> : null}
        {!request && !f.required ? <span className="ml-1 font-sans text-[0.65rem] uppercase text-slate-500">optional</span> : null}
      </td>
      <td className="py-1.5 pr-4 font-mono text-xs text-slate-700">
        {f.ref ? (
          <a className={docLink} href={`#schema-${f.ref}`}>
            {f.type}
          </a>
        ) : (
          f.type
        )}
      </td>
      <td className="py-1.5 text-slate-700">
        <Prose text={f.description} />
        {f.constraints.length > 0 ? <span className="block text-xs text-slate-500">{f.constraints.join(" · ")}</span> : null}
      </td>
    </tr>
  ));
}

function OperationSection({ op }: { op: OperationView }) {
  const ok = op.responses.filter((r) => Number(r.status) < 400);
  const errors = op.responses.filter((r) => Number(r.status) >= 400);
  return (
    <section id={op.id} aria-labelledby={`${op.id}-title`} className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
      <h3 id={`${op.id}-title`} className="flex flex-wrap items-center gap-2 font-mono text-sm font-semibold text-slate-900">
        <MethodBadge method={op.method} />
        <span className="break-all">/api{op.path}</span>
      </h3>
      <p className="mt-2 font-medium text-slate-900">{op.summary}</p>
      {op.description ? (
        <p className="mt-1 text-sm text-slate-700">
          <Prose text={op.description} />
        </p>
      ) : null}
      <p className="mt-2 text-xs text-slate-500">
        operationId <code className="font-mono">{op.id}</code>
        {op.scope ? (
          <>
            {" · "}scope <code className="rounded bg-amber-50 px-1 font-mono text-amber-900">{op.scope}</code>
          </>
        ) : null}
      </p>

      {op.parameters.length > 0 ? (
        <>
          <h4 className="mt-4 text-sm font-semibold text-slate-900">Parameters</h4>
          <Table head={["Name", "In", "Type", "Description"]}>
            {op.parameters.map((p) => (
              <tr key={`${p.in}-${p.name}`} className="border-b border-slate-100">
                <td className="py-1.5 pr-4 font-mono text-xs whitespace-nowrap">
                  {p.name}
                  {p.required ? <span className="ml-1 font-sans text-[0.65rem] font-semibold uppercase text-red-700">required</span> : null}
                </td>
                <td className="py-1.5 pr-4 text-xs text-slate-600">{p.in}</td>
                <td className="py-1.5 pr-4 font-mono text-xs text-slate-700">{p.type}</td>
                <td className="py-1.5 text-slate-700">
                  <Prose text={p.description} />
                  {p.constraints.length > 0 ? <span className="block text-xs text-slate-500">{p.constraints.join(" · ")}</span> : null}
                </td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}

      {op.body ? (
        <>
          <h4 className="mt-4 text-sm font-semibold text-slate-900">Request body (JSON)</h4>
          <Table head={["Field", "Type", "Description"]}>
            <FieldRows fields={op.body.fields} request />
          </Table>
        </>
      ) : null}

      <CodeBlock label="Example request">{op.curl}</CodeBlock>

      <h4 className="mt-4 text-sm font-semibold text-slate-900">Responses</h4>
      <ul className="mt-1 space-y-1 text-sm">
        {ok.map((r) => (
          <li key={r.status}>
            <span className="mr-2 inline-block rounded bg-emerald-50 px-1.5 font-mono text-xs font-semibold text-emerald-900">{r.status}</span>
            {r.description}
            {r.ref ? (
              <>
                {" — "}
                <a className={docLink} href={`#schema-${r.ref}`}>
                  {r.ref}
                </a>
              </>
            ) : null}
            {r.contentType && r.contentType !== "application/json" ? <span className="ml-1 font-mono text-xs text-slate-500">({r.contentType})</span> : null}
          </li>
        ))}
      </ul>
      {ok.some((r) => r.fields.length > 0 && !r.ref) ? (
        <Table head={["Field", "Type", "Description"]}>
          <FieldRows fields={ok.find((r) => r.fields.length > 0)!.fields} />
        </Table>
      ) : null}
      <p className="mt-2 text-xs text-slate-600">
        Errors as{" "}
        <Link className={docLink} href="/docs/errors">
          problem+json
        </Link>
        : {errors.map((r) => r.status).join(", ")}
      </p>
    </section>
  );
}

// GET /docs/api — the API reference, rendered on the server from the OpenAPI document
export default function ApiReferencePage() {
  const doc = buildOpenApiDocument();
  const ops = operationsOf(doc);
  const tags = [...new Set(ops.map((o) => o.tag))];
  const schemas = schemasOf(doc);
  return (
    <div className="mx-auto flex max-w-7xl gap-8 px-4 py-8">
      <nav aria-label="Operations" className="sticky top-4 hidden max-h-[calc(100vh-2rem)] w-72 shrink-0 self-start overflow-y-auto pr-2 lg:block">
        {tags.map((tag) => (
          <div key={tag} className="mb-4">
            <a href={`#tag-${tag}`} className="text-xs font-semibold uppercase tracking-wide text-slate-500 hover:text-slate-800">
              {tag}
            </a>
            <ul className="mt-1 space-y-0.5">
              {ops
                .filter((o) => o.tag === tag)
                .map((o) => (
                  <li key={o.id}>
                    <a href={`#${o.id}`} className="flex items-center gap-2 rounded px-1 py-0.5 text-xs hover:bg-slate-200">
                      <span className="w-12 shrink-0 font-mono font-bold text-slate-500">{o.method}</span>
                      <span className="truncate text-slate-800">{o.summary}</span>
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
        <a href="#schemas" className="text-xs font-semibold uppercase tracking-wide text-slate-500 hover:text-slate-800">
          Schemas
        </a>
      </nav>

      <main className="min-w-0 flex-1">
        <h1 className="text-3xl font-semibold tracking-tight">API reference</h1>
        <p className="mt-3 max-w-3xl text-slate-700">
          <Prose text={String((doc.info as { description: string }).description)} />
        </p>
        <ul className="mt-3 max-w-3xl list-disc space-y-1 pl-5 text-sm text-slate-700">
          <li>
            Base URL: <code className="rounded bg-slate-200 px-1">/api</code> on your AgentDraft origin; every request needs{" "}
            <code className="rounded bg-slate-200 px-1">Authorization: Bearer ad_live_...</code>.
          </li>
          <li>
            POSTs accept <code className="rounded bg-slate-200 px-1">Idempotency-Key</code>: the first answer is stored for 24 hours and replayed for the
            same key and body.
          </li>
          <li>
            Lists are newest first with <code className="rounded bg-slate-200 px-1">limit</code> and{" "}
            <code className="rounded bg-slate-200 px-1">starting_after</code>, answered as <code className="rounded bg-slate-200 px-1">{"{object: \"list\", data, has_more}"}</code>.
          </li>
          <li>
            Machine-readable: <a className={docLink} href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Typed client:{" "}
            <Link className={docLink} href="/docs#2-your-first-hold-with-the-typescript-client">@agentdraft/client</Link>.
          </li>
        </ul>

        {tags.map((tag) => (
          <section key={tag} id={`tag-${tag}`} aria-labelledby={`tag-${tag}-title`} className="mt-10 scroll-mt-4">
            <h2 id={`tag-${tag}-title`} className="mb-4 border-b border-slate-200 pb-2 text-xl font-semibold">
              {tag}
            </h2>
            <div className="space-y-5">
              {ops
                .filter((o) => o.tag === tag)
                .map((op) => (
                  <OperationSection key={op.id} op={op} />
                ))}
            </div>
          </section>
        ))}

        <section id="schemas" aria-labelledby="schemas-title" className="mt-12 scroll-mt-4">
          <h2 id="schemas-title" className="mb-4 border-b border-slate-200 pb-2 text-xl font-semibold">
            Schemas
          </h2>
          <div className="space-y-5">
            {schemas.map((s) => (
              <section key={s.name} id={`schema-${s.name}`} aria-labelledby={`schema-${s.name}-title`} className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
                <h3 id={`schema-${s.name}-title`} className="font-mono text-base font-semibold">
                  {s.name}
                </h3>
                {s.description ? (
                  <p className="mt-1 text-sm text-slate-700">
                    <Prose text={s.description} />
                  </p>
                ) : null}
                {s.name === "Problem" ? (
                  <p className="mt-1 text-sm text-slate-700">
                    Every error. See <Link className={docLink} href="/docs/errors">error codes</Link>.
                  </p>
                ) : null}
                <Table head={["Field", "Type", "Description"]}>
                  <FieldRows fields={s.fields} />
                </Table>
              </section>
            ))}
          </div>
        </section>
      </main>
    </div>
  );
}
