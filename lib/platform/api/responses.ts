export const json = (data: unknown, status = 200, headers: HeadersInit = {}) =>
  Response.json(data, { status, headers });

export const created = (data: unknown) => json(data, 201);

/** A page of a list, newest first (SPEC §2). */
export function list<T>(data: T[], hasMore: boolean) {
  return json({ object: "list", data, has_more: hasMore });
}
