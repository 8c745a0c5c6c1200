"use client";

import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";

/** The longest wait before connecting again after the server refused or failed the live channel. */
const RECONNECT_MAX_MS = 30_000;

/**
 * Keeps a server-rendered page current: listens to /api/live (Server-Sent Events of the
 * workspace's events) and re-renders the page from the server when one of `types` commits.
 * `from` is the stream position the page read before its data (livePosition): the channel starts
 * there, so a change committed between the render and the connection refreshes the page too.
 * The browser reconnects by itself after a dropped connection (resuming with Last-Event-ID); after
 * an error answer, which EventSource never retries, this connects again, from the last event seen.
 * Without JavaScript the page is simply as of its last load.
 */
export function LiveRefresh({ types, label, from }: { types: string[]; label: string; from: string }) {
  const router = useRouter();
  const [live, setLive] = useState(false);
  const [updatedAt, setUpdatedAt] = useState<string | null>(null);
  // Where the page was when it was first rendered; a refresh re-renders it with a later one, but
  // the open channel already streams everything after the first.
  const start = useRef(from);
  const query = types.join(",");
  useEffect(() => {
    let position = start.current;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reconnect: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let closed = false;
    const changed = (ev: Event) => {
      const id = (ev as MessageEvent).lastEventId;
      if (id) position = id;
      // A burst of events is one refresh.
      clearTimeout(timer);
      timer = setTimeout(() => {
        router.refresh();
        setUpdatedAt(new Date().toLocaleTimeString());
      }, 150);
    };
    const connect = () => {
      const s = new EventSource(`/api/live?types=${encodeURIComponent(query)}&after=${encodeURIComponent(position)}`);
      source = s;
      s.onopen = () => {
        failures = 0;
        setLive(true);
      };
      s.onerror = () => {
        setLive(false);
        // CONNECTING: the browser retries by itself. CLOSED: it gave up (an error answer); try again.
        if (s.readyState !== EventSource.CLOSED || closed) return;
        s.close();
        reconnect = setTimeout(connect, Math.min(RECONNECT_MAX_MS, 1_000 * 2 ** failures++));
      };
      for (const t of query.split(",")) s.addEventListener(t, changed);
    };
    connect();
    return () => {
      closed = true;
      clearTimeout(timer);
      clearTimeout(reconnect);
      source?.close();
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
