/** The badge colour of each approval status, on the history and detail pages. */
export const APPROVAL_TONE = { approved: "green", denied: "red", expired: "slate", cancelled: "slate", pending: "amber" } as const;
