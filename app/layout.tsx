import type { Metadata } from "next";
import type { ReactNode } from "react";
import { startupProblem } from "@/lib/platform/config/startup-gate";
import "./globals.css";
import { TimeZoneScript } from "./time-zone-script";

export const metadata: Metadata = {
  title: { default: "AgentDraft", template: "%s · AgentDraft" },
  description: "The coordination layer for teams of AI agents.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A deployment that cannot serve (start-up checks) says why instead of failing page by page.
  const problem = await startupProblem();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <TimeZoneScript />
        {problem ? (
          <main className="mx-auto max-w-xl p-8">
            <h1 className="text-xl font-semibold">{problem.transient ? "AgentDraft is starting" : "AgentDraft is not configured correctly"}</h1>
            <p className="mt-4" role="alert">
              {problem.reason}
            </p>
            {problem.transient ? <p className="mt-2 text-slate-600">Reload in a moment.</p> : null}
          </main>
        ) : (
          children
        )}
      </body>
    </html>
  );
}
