import { redirect } from "next/navigation";
import { requireMember } from "@/lib/domains/auth/current-member";

// GET /traces?id=… — the "find a trace" form lands here.
export default async function FindTracePage({ searchParams }: { searchParams: Promise<{ id?: string }> }) {
  await requireMember();
  const id = ((await searchParams).id ?? "").trim();
  redirect(id ? `/traces/${encodeURIComponent(id)}` : "/handoffs");
}
