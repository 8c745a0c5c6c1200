import { EventEmitter } from "node:events";

// Wakes long-polls in this process the moment an approval resolves; other instances notice
// within their polling interval.
const resolved = new EventEmitter();
resolved.setMaxListeners(0);

export const announceResolved = (approvalId: string) => resolved.emit(approvalId);

/** Resolves on announcement or after `ms`, whichever comes first. */
export function waitForAnnouncement(approvalId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolved.off(approvalId, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    resolved.once(approvalId, done);
  });
}
