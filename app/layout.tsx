import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import { TimeZoneScript } from "./time-zone-script";

export const metadata: Metadata = {
  title: { default: "AgentDraft", template: "%s · AgentDraft" },
  description: "The coordination layer for teams of AI agents.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <TimeZoneScript />
        {children}
      </body>
    </html>
  );
}
