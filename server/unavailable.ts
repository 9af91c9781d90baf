/** How long clients are asked to wait before trying again while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 10;

export const DATABASE_UNAVAILABLE_MESSAGE =
  "Soundtrail can't reach its database right now. Nothing you saved is lost — please try again in a moment.";

function page(options: { title: string; heading: string; text: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title} · Soundtrail</title>
<style>
body{margin:0;min-height:100vh;display:grid;place-items:center;font-family:system-ui,sans-serif;background:#f8fafc;color:#0f172a}
main{max-width:32rem;padding:2rem;text-align:center}
h1{font-size:1.5rem;margin:0 0 .75rem}
p{line-height:1.5;color:#334155}
a{display:inline-block;margin-top:1rem;padding:.6rem 1.1rem;border-radius:.5rem;background:#15803d;color:#fff;text-decoration:none}
@media (prefers-color-scheme:dark){body{background:#0f172a;color:#f1f5f9}p{color:#cbd5e1}}
</style>
</head>
<body>
<main>
<p>503 · Service Unavailable</p>
<h1>${options.heading}</h1>
<p>${options.text}</p>
<a href="">Try again</a>
</main>
</body>
</html>
`;
}

const DATABASE_PAGE = page({
  title: "Temporarily unavailable",
  heading: "Soundtrail can't reach its database right now",
  text: "Nothing you saved is lost. This page will work again once the database is back — usually within a minute. Please try again shortly.",
});

/**
 * The answer to a request that failed because the database could not be reached: 503 with
 * `Retry-After`, in the form the client asked for — a self-contained page for documents (it
 * needs neither the database nor any script), plain text for React Router's `.data` requests
 * (the client shows it in the error boundary with status 503), JSON for resource routes.
 */
export function databaseUnavailableResponse(
  request: Request,
  original: Response,
  securityHeaders: Readonly<Record<string, string>>,
): Response {
  const url = new URL(request.url);
  const headers = new Headers(securityHeaders);
  headers.set("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
  headers.set("Cache-Control", "no-store");
  // Keep what the app decided about cookies (e.g. a refreshed session) and the request id.
  for (const cookie of original.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  const requestId = original.headers.get("X-Request-Id");
  if (requestId) headers.set("X-Request-Id", requestId);
  const type = original.headers.get("Content-Type") ?? "";
  if (url.pathname.endsWith(".data")) {
    headers.set("Content-Type", "text/plain; charset=utf-8");
    return new Response(DATABASE_UNAVAILABLE_MESSAGE, { status: 503, headers });
  }
  if (type.includes("text/html")) {
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return new Response(request.method === "HEAD" ? null : DATABASE_PAGE, { status: 503, headers });
  }
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(
    JSON.stringify({ error: DATABASE_UNAVAILABLE_MESSAGE, code: "database_unavailable" }),
    { status: 503, headers },
  );
}

/** How long clients are asked to wait before trying again when the server is too busy. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

export const BUSY_MESSAGE =
  "Soundtrail is very busy right now. Nothing was changed — please try again in a moment.";

const BUSY_PAGE = page({
  title: "Busy",
  heading: "Soundtrail is very busy right now",
  text: "Too many people asked at once, so this request was not started and nothing was changed. Please try again in a moment.",
});

/**
 * The answer to a request the server had no room to start (server/admission.ts): 503 with
 * `Retry-After`, before the app saw it, so nothing was done. In the form the client asked
 * for, as for the database outage.
 */
export function busyResponse(
  request: Request,
  securityHeaders: Readonly<Record<string, string>>,
): Response {
  const url = new URL(request.url);
  const headers = new Headers(securityHeaders);
  headers.set("Retry-After", String(BUSY_RETRY_AFTER_SECONDS));
  headers.set("Cache-Control", "no-store");
  const accept = request.headers.get("Accept") ?? "";
  if (url.pathname.endsWith(".data")) {
    headers.set("Content-Type", "text/plain; charset=utf-8");
    return new Response(BUSY_MESSAGE, { status: 503, headers });
  }
  if (accept.includes("text/html")) {
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return new Response(request.method === "HEAD" ? null : BUSY_PAGE, { status: 503, headers });
  }
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(JSON.stringify({ error: BUSY_MESSAGE, code: "busy" }), {
    status: 503,
    headers,
  });
}
