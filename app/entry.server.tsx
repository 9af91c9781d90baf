import { PassThrough, pipeline } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import type { RenderToPipeableStreamOptions } from "react-dom/server";
import { renderToPipeableStream } from "react-dom/server";
import type { EntryContext, HandleErrorFunction } from "react-router";
import { isRouteErrorResponse, RouterContextProvider, ServerRouter } from "react-router";
import { logger } from "~/core/logger.server";
import { isDatabaseUnavailable, logDatabaseUnavailable } from "~/db/unavailable.server";
import { type RequestInfo, requestInfoContext } from "~/lib/context.server";
import { headLinks } from "~/lib/head-links.server";
import { NonceContext } from "~/lib/nonce";
import { contentSecurityPolicy } from "./security.server";

export {
  countShedRequest,
  observeRequest,
  renderMetrics,
  watchAdmission,
} from "~/core/metrics.server";
export {
  handleFederationRequest,
  isFederationRequest,
} from "~/features/federation/index.server";
export { collectAfterResponse } from "~/lib/after-response.server";
export {
  bootstrap,
  countWaitingRequestsWith,
  endLiveStreams,
  isReady,
  shutdown,
} from "./app.server";

export const streamTimeout = 5_000;

/** Builds the per-request context the server hands to React Router. */
export function createLoadContext(info: RequestInfo): RouterContextProvider {
  const context = new RouterContextProvider();
  context.set(requestInfoContext, info);
  return context;
}

/** Requests (by their load context) that failed because the database could not be reached. */
const failedForDatabase = new WeakSet<object>();

/**
 * True when a request failed because the database could not be reached: the server then
 * answers 503 with Retry-After instead of the error page (server/unavailable.ts).
 */
export function wasDatabaseUnavailable(context: RouterContextProvider): boolean {
  return failedForDatabase.has(context);
}

export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  if (isDatabaseUnavailable(error)) {
    failedForDatabase.add(context);
    logDatabaseUnavailable("request", error);
    return;
  }
  // 404s and other deliberate responses are outcomes, not failures.
  if (isRouteErrorResponse(error) && error.status < 500) return;
  const info = context.get(requestInfoContext);
  logger.error({ err: error, requestId: info.requestId, url: request.url }, "unhandled error");
};

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const { nonce } = loadContext.get(requestInfoContext);
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));

  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const userAgent = request.headers.get("user-agent");
    const readyOption: keyof RenderToPipeableStreamOptions =
      (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";

    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(
      () => abort(),
      streamTimeout + 1000,
    );

    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        [readyOption]() {
          shellRendered = true;
          const body = new PassThrough({
            final(callback) {
              clearTimeout(timeoutId);
              timeoutId = undefined;
              callback();
            },
          });
          const document = headLinks();
          pipeline(body, document, () => {});
          const stream = createReadableStreamFromReadable(document);
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          pipe(body);
          resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }));
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) logger.error({ err: error }, "streaming render error");
        },
      },
    );
  });
}

export { setAdminRole } from "~/features/auth/admin-role.server";
export { prepareFirstAdminSetup } from "~/features/auth/first-admin.server";

/**
 * `SEED_DEMO=1 npm start`: the demo community, added by the running server itself (on PGlite
 * `npm run seed` cannot open a data directory the server holds). Loaded only then.
 */
export async function seedDemo(): Promise<string> {
  const { describeSeedSummary, seedDatabase } = await import("~/seed.server");
  const { getDb } = await import("~/db/client.server");
  return describeSeedSummary(await seedDatabase(getDb()));
}
