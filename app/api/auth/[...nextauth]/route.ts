import { handlers } from "@/lib/auth/auth";

// Auth.js endpoints: passkey options, callbacks, session, sign-out.
export const { GET, POST } = handlers;
