import type { Viewer } from "./context.server";

/**
 * Looks up the session of a request. Accounts are not wired yet (the accounts issue replaces
 * this body with the better-auth session lookup), so every visitor is signed out.
 */
export async function lookupViewer(_request: Request): Promise<Viewer | null> {
  return null;
}
