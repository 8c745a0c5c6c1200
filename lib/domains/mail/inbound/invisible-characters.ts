/**
 * Zero-width and bidirectional control characters: invisible to a reader, visible to a model,
 * and the usual way to smuggle instructions or spoof text direction. Soft hyphen included.
 */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

export function stripInvisible(text: string): { text: string; removed: number } {
  let removed = 0;
  const out = text.replace(INVISIBLE, () => {
    removed++;
    return "";
  });
  return { text: out, removed };
}
