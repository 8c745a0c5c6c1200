"use client";

import { useEffect, useState } from "react";
import { useRouter } from "next/navigation";

/**
 * Keeps a server-rendered page current: listens to /api/live (Server-Sent Events of the
 * workspace's events) and re-renders the page from the server when one of `types` commits.
 * Without JavaScript the page is simply as of its last load.
 */
export function LiveRefresh({ types, label }: { types: string[]; label: string }) {
  const router = useRouter();
  const [live, setLive] = useState(false);
  const [updatedAt, setUpdatedAt] = useState<string | null>(null);
  const query = types.join(",");
  useEffect(() => {
    const source = new EventSource(`/api/live?types=${encodeURIComponent(query)}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const changed = () => {
      // A burst of events is one refresh.
      clearTimeout(timer);
      timer = setTimeout(() => {
        router.refresh();
        setUpdatedAt(new Date().toLocaleTimeString());
      }, 150);
    };
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    for (const t of query.split(",")) source.addEventListener(t, changed);
    return () => {
      clearTimeout(timer);
      source.close();
    };
  }, [query, router]);
  return (
    <p className="mb-4 flex items-center gap-2 text-xs text-slate-600" data-testid="live-status" aria-live="polite">
      <span className={`inline-block h-2 w-2 rounded-full ${live ? "bg-green-600" : "bg-slate-400"}`} aria-hidden />
      {live ? `Live: ${label} update by themselves` : "Not live: reload to see changes"}
      {updatedAt ? ` · updated ${updatedAt}` : ""}
    </p>
  );
}
