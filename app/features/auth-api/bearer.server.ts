import { loadViewer } from "~/features/auth/index.server";
import type { Viewer } from "~/lib/context.server";
import { bearerTokenOf, loadTokenSession, verifyAccessToken } from "./tokens.server";

/**
 * The viewer of a request that carries `Authorization: Bearer <access token>` (the token API's
 * door into the data routes). Cookies are not looked at. The token must verify and its session
 * must still be live (not signed out, not banned); an account with two-step sign-in needs an
 * `aal2` session, exactly as the browser cannot get a session without the second factor.
 */
export async function getViewerFromBearer(
  headers: Headers,
): Promise<{ viewer: Viewer | null; sessionId: string | null }> {
  const token = bearerTokenOf(headers);
  const claims = token ? await verifyAccessToken(token) : null;
  if (!claims) return { viewer: null, sessionId: null };
  const live = await loadTokenSession(claims.session_id);
  if (!live || live.userId !== claims.sub) return { viewer: null, sessionId: null };
  if (live.twoFactorEnabled && live.aal !== "aal2") return { viewer: null, sessionId: null };
  const viewer = await loadViewer(live.userId);
  return viewer ? { viewer, sessionId: live.authSessionId } : { viewer: null, sessionId: null };
}
