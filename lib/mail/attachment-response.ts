import type { AttachmentRow } from "../../db/schema";

/**
 * An attachment as a download: always `attachment` disposition and nosniff, so a browser
 * never renders sender-controlled HTML or SVG in the app's origin.
 */
export function attachmentResponse(a: AttachmentRow): Response {
  const filename = (a.filename ?? `${a.id}.bin`).replace(/[\r\n"\\]/g, "_");
  return new Response(new Uint8Array(a.content), {
    headers: {
      "content-type": /^[\w.+-]+\/[\w.+-]+$/.test(a.contentType) ? a.contentType : "application/octet-stream",
      "content-length": String(a.content.length),
      "content-disposition": `attachment; filename="${filename.replace(/[^\x20-\x7e]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      etag: `"${a.sha256}"`,
      "cache-control": "private, max-age=3600",
    },
  });
}
