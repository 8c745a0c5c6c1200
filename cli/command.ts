export type Flags = Record<string, string | boolean | undefined>;
/** What a command returns: JSON for --json, and the lines a person reads otherwise. */
export type Output = { json: unknown; human: string[] };

/** Where a command says what a person should know before its result (stderr). */
export type Notice = { write(text: string): unknown };

export type Command = {
  usage: string;
  summary: string;
  flags: Record<string, "string" | "boolean">;
  run: (flags: Flags, notice: Notice) => Promise<Output>;
  /** false: the command needs no migrated schema (it migrates, reports, or talks HTTP only). */
  needsSchema?: false;
};
