import { type Auth, getAuth } from "./better-auth.server";

/** What a better-auth endpoint answered, read once. */
export type AuthAnswer =
  | { ok: true; response: Response; headers: Headers }
  | {
      ok: false;
      response: Response;
      status: number;
      /** better-auth's error code (`EMAIL_NOT_VERIFIED` …) and message, when it sent them. */
      code?: string;
      message?: string;
      /** Set for a 429: how long to wait, from better-auth's own limiter. */
      retryAfterSeconds?: number;
    };

/** The Set-Cookie headers of a better-auth answer, to pass on to the browser. */
export function cookiesOf(response: Response): Headers {
  const headers = new Headers();
  for (const cookie of response.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return headers;
}

/** The `{ code, message }` of a better-auth error answer (empty when its body is not JSON). */
export async function errorMessage(
  response: Response,
): Promise<{ code?: string; message?: string }> {
  try {
    return (await response.json()) as { code?: string; message?: string };
  } catch {
    return {};
  }
}

/**
 * Calls one better-auth endpoint as a Response (`asResponse: true`, so its cookies and status
 * are ours to read) and reads what every account flow needs of it: when it worked (a redirect
 * counts), the cookies it set; when not, its status, its error code and message, and for a
 * 429 how long to wait. The response itself is kept for a body that carries more.
 */
export async function callAuth(call: (api: Auth["api"]) => Promise<Response>): Promise<AuthAnswer> {
  const response = await call(getAuth().api);
  if (response.ok || (response.status >= 300 && response.status < 400)) {
    return { ok: true, response, headers: cookiesOf(response) };
  }
  const { code, message } = await errorMessage(response.clone());
  return {
    ok: false,
    response,
    status: response.status,
    code,
    message,
    retryAfterSeconds:
      response.status === 429 ? Number(response.headers.get("X-Retry-After") ?? 60) : undefined,
  };
}
