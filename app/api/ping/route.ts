// GET /api/ping — liveness without touching the database (and the framework's own
// baseline in `npm run bench:api`).
export function GET() {
  return Response.json({ pong: true });
}
