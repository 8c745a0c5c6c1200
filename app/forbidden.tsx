import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-xl px-6 py-16">
      <p className="text-sm font-semibold text-red-800">403</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight text-slate-900">Your role does not allow this page</h1>
      <p className="mt-2 text-sm text-slate-700">Ask an admin or owner of your workspace if you need access.</p>
      <Link className="mt-6 inline-block font-medium text-indigo-700 underline underline-offset-2" href="/overview">
        Back to the overview
      </Link>
    </main>
  );
}
