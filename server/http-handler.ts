import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import {
  BODY_LIMITS,
  type BodyClass,
  type BodyRefusal,
  bodyClassFor,
  checkDeclaredBody,
  mediaTypeOf,
  tooLargeFor,
} from "~/body-limits.server";
import { withRequestLogContext } from "~/core/logger.server";
import type { AdmissionQueue, Release } from "./admission";
import { clientAddress } from "./client-address";
import { hasPendingBody, lingerBeforeClose, readBodyWithin, serveFetch } from "./fetch-listener";
import { clientKeyFor, laneFor } from "./lanes";
import { checkOrigin } from "./origin";
import { serveStatic } from "./static";
import { busyResponse } from "./unavailable";

/**
 * Removes the Cookie and Origin headers of a bearer request (parsed and raw) before the app
 * sees it: its credential is the token, so no cookie may count, and Origin (a defence of
 * cookie sessions, checked again by React Router for actions) has nothing to defend.
 */
function dropAmbientCredentials(req: IncomingMessage): void {
  delete req.headers.cookie;
  delete req.headers.origin;
  const raw = req.rawHeaders;
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? "").toLowerCase();
    if (name !== "cookie" && name !== "origin") kept.push(raw[i] ?? "", raw[i + 1] ?? "");
  }
  raw.length = 0;
  raw.push(...kept);
}

/** A refusal's JSON body: ListenBrainz's `{ code, error }` under /1/, else `{ error }`. */
function refusalBody(refusal: { status: number; message: string }, bodyClass: BodyClass) {
  return bodyClass === "listenbrainz"
    ? { code: refusal.status, error: refusal.message }
    : { error: refusal.message };
}

/** Who is asking, as the server worked it out before the app sees the request. */
export interface RequestFacts {
  requestId: string;
  clientAddress: string;
}

export interface NodeHandlerOptions {
  /** The app: React Router's handler with its per-request context. */
  handleRequest(request: Request, facts: RequestFacts): Promise<Response>;
  /**
   * Called once the exchange of `requestId` is over — the response written, or the request
   * failed or was aborted — so that work deferred until after the answer runs (and is never
   * dropped).
   */
  onExchangeEnd?(requestId: string): void;
  isReady(): Promise<boolean>;
  isShuttingDown(): boolean;
  /** The built client files, or null to serve none. */
  clientDir: string | null;
  /** Origins state-changing requests may come from (BASE_URL's). */
  allowedOrigins: readonly string[];
  trustProxy: boolean;
  securityHeaders: Readonly<Record<string, string>>;
  logger: Logger;
  /**
   * `/metrics` (Prometheus text) for requests bearing `Authorization: Bearer <token>`; null
   * (no METRICS_TOKEN) leaves the path to the app, which answers 404.
   */
  metrics?: { token: string; render(): Promise<{ contentType: string; body: string }> } | null;
  /**
   * How many app requests run at once and how many may wait (server/admission.ts); null or
   * absent: no bound. A request holds its turn until its answer is written (an event stream
   * only until its headers are), and one that finds the queue full gets a 503 at once.
   */
  admission?: AdmissionQueue | null;
  /** Told of each request refused at once because the admission queue was full. */
  onShed?: () => void;
}

/** True when `authorization` is `Bearer <token>`, compared in constant time. */
function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const given = createHash("sha256")
    .update(match?.[1] ?? "")
    .digest();
  const wanted = createHash("sha256").update(token).digest();
  return match !== null && timingSafeEqual(given, wanted);
}

/**
 * The node:http request listener: health checks and static files, then the body rules of
 * app/body-limits.server.ts and the Origin check — both from headers alone, before a byte of the body is
 * read — then the app through fetch-listener.ts. It never rejects: whatever happens is answered
 * and logged here.
 */
export function createNodeHandler(options: NodeHandlerOptions) {
  const { logger } = options;

  function refuse(
    req: IncomingMessage,
    res: ServerResponse,
    refusal: BodyRefusal | { status: 403; message: string },
    context: { requestId: string; bodyClass: BodyClass; path: string; started: number },
  ) {
    const headers: Record<string, string> = {
      ...options.securityHeaders,
      "Cache-Control": "no-store",
      "X-Request-Id": context.requestId,
    };
    // A body left on the wire is not read: the connection ends after this answer.
    if (hasPendingBody(req)) {
      headers.Connection = "close";
      lingerBeforeClose(req);
    }
    const isListenBrainz = context.bodyClass === "listenbrainz";
    const wantsJson =
      context.bodyClass === "json" ||
      context.bodyClass === "api" ||
      context.bodyClass === "activitypub" ||
      isListenBrainz ||
      mediaTypeOf(req.headers.accept) === "application/json";
    const body = wantsJson
      ? JSON.stringify(refusalBody(refusal, context.bodyClass))
      : `${refusal.message}\n`;
    if (isListenBrainz) headers["Access-Control-Allow-Origin"] = "*";
    headers["Content-Type"] = wantsJson
      ? "application/json; charset=utf-8"
      : "text/plain; charset=utf-8";
    res.writeHead(refusal.status, headers);
    res.end(req.method === "HEAD" ? undefined : body);
    (refusal.status === 413 ? logger.warn : logger.info).call(
      logger,
      {
        requestId: context.requestId,
        method: req.method,
        path: context.path,
        status: refusal.status,
        reason: refusal.message,
        ms: Math.round(performance.now() - context.started),
      },
      "request refused",
    );
  }

  function refusalResponse(refusal: BodyRefusal, requestId: string, bodyClass: BodyClass) {
    const isJson =
      bodyClass === "json" ||
      bodyClass === "api" ||
      bodyClass === "activitypub" ||
      bodyClass === "listenbrainz";
    return new Response(
      isJson ? JSON.stringify(refusalBody(refusal, bodyClass)) : refusal.message,
      {
        status: refusal.status,
        headers: {
          ...(bodyClass === "listenbrainz" ? { "Access-Control-Allow-Origin": "*" } : {}),
          ...options.securityHeaders,
          "Content-Type": isJson ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
          "Cache-Control": "no-store",
          "X-Request-Id": requestId,
        },
      },
    );
  }

  function handleApp(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    expectsContinue: boolean,
  ) {
    const requestId = String(req.headers["x-request-id"] ?? "").slice(0, 64) || randomUUID();
    // Every log line written while this request is served (here, in the app, in the work it
    // defers until after its answer) carries its id.
    return withRequestLogContext(requestId, () =>
      serveApp(req, res, pathname, expectsContinue, requestId),
    );
  }

  async function serveApp(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    expectsContinue: boolean,
    requestId: string,
  ) {
    const started = performance.now();
    const method = req.method ?? "GET";
    const bodyClass = bodyClassFor(method, pathname);
    const context = { requestId, bodyClass, path: pathname, started };

    const declared = checkDeclaredBody(bodyClass, req.headers);
    if (declared) return refuse(req, res, declared, context);
    // Headers are set on `res` only for files served here: headers set before the hand-off
    // to React Router would make Node keep only the last of several Set-Cookie headers.
    if (
      options.clientDir &&
      (await serveStatic(req, res, options.clientDir, pathname, options.securityHeaders))
    ) {
      return;
    }
    // A request with a bearer token carries its credential in a header that another site cannot
    // make a browser send: it is not subject to the Origin check and never reads cookies (they
    // are dropped here, once, so nothing downstream can). The token API reads no cookie either
    // (its OAuth callback is a top-level navigation, a GET) and answers other origins by CORS.
    // The ListenBrainz API (/1/) is the same kind of API: a token in a header, no cookie.
    const isBearer = /^bearer\s/i.test(String(req.headers.authorization ?? ""));
    const isListenBrainz = bodyClass === "listenbrainz";
    // An ActivityPub delivery's credential is its HTTP signature (checked by Fedify): like the
    // token APIs, no cookie counts and Origin has nothing to defend.
    const isActivityPub = bodyClass === "activitypub";
    if (isBearer || isListenBrainz || isActivityPub) dropAmbientCredentials(req);
    const isTokenApi =
      bodyClass === "api" || isListenBrainz || isActivityPub || /^\/auth\/v1\//i.test(pathname);
    const foreign =
      isBearer || isTokenApi ? null : checkOrigin(method, req.headers, options.allowedOrigins);
    if (foreign) {
      return refuse(
        req,
        res,
        { status: 403, message: "Forbidden: this request did not come from Soundtrail." },
        context,
      );
    }

    let hasContinued = false;
    const sendContinue = () => {
      if (expectsContinue && !hasContinued && !res.headersSent) res.writeContinue();
      hasContinued = true;
    };
    const limit = BODY_LIMITS[bodyClass];
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (bodyClass === "form") {
      // Forms are small: read them whole here, so that a body the app cannot parse is a 400
      // from one place rather than an exception in whichever action calls formData().
      const read = await readBodyWithin(req, limit, sendContinue);
      if (read.kind === "too_large") return refuse(req, res, tooLargeFor(bodyClass), context);
      if (read.kind === "aborted") {
        logger.info({ requestId, method, path: pathname }, "request aborted");
        return;
      }
      const contentType = req.headers["content-type"] ?? "";
      if (mediaTypeOf(contentType) === "multipart/form-data") {
        try {
          await new Response(read.body, { headers: { "Content-Type": contentType } }).formData();
        } catch {
          return refuse(
            req,
            res,
            {
              status: 400,
              message: "The form could not be read: its multipart body is malformed.",
            },
            context,
          );
        }
      }
      body = read.body;
    }

    const address = clientAddress(
      req.socket.remoteAddress ?? "",
      typeof req.headers["x-forwarded-for"] === "string" ? req.headers["x-forwarded-for"] : null,
      options.trustProxy,
    );
    /**
     * This request's turn (server/admission.ts), given back once its answer is ready to stream:
     * the server's work is done then, and a slow client's download holds no turn.
     */
    let turn: Release | null = null;
    const ticket = { client: clientKeyFor(req.headers, address), lane: laneFor(method, pathname) };
    const exchange = await serveFetch(req, res, {
      protocol: "encrypted" in req.socket && req.socket.encrypted ? "https:" : "http:",
      limit,
      body,
      onFirstRead: sendContinue,
      tooLarge: () => refusalResponse(tooLargeFor(bodyClass), requestId, bodyClass),
      handler: async (request) => {
        let response: Response;
        // An image or a listening history arrives as the app reads it, at the sender's pace
        // (minutes on a slow phone line): holding one of the few turns for that would stall
        // everyone else, so these take none (their size is bounded by BODY_LIMITS).
        if (options.admission && bodyClass !== "upload" && bodyClass !== "history") {
          turn = await options.admission.enter(request.signal, ticket);
          if (!turn) {
            // Null for a client that left while it waited, too: that one was not refused.
            if (!request.signal.aborted) options.onShed?.();
            response = busyResponse(request, options.securityHeaders);
            response.headers.set("X-Request-Id", requestId);
            return response;
          }
        }
        response = await options.handleRequest(request, {
          requestId,
          clientAddress: address,
        });
        // The answer is ready to stream (a live event stream, which stays open for hours,
        // included): the turn goes to the next request.
        turn?.();
        for (const [name, value] of Object.entries(options.securityHeaders)) {
          if (!response.headers.has(name)) response.headers.set(name, value);
        }
        response.headers.set("X-Request-Id", requestId);
        return response;
      },
    }).finally(() => {
      turn?.();
      options.onExchangeEnd?.(requestId);
    });
    const fields = {
      requestId,
      method,
      path: pathname,
      status: exchange.status,
      ms: Math.round(performance.now() - started),
    };
    if (exchange.isTooLarge) {
      logger.warn({ ...fields, reason: tooLargeFor(bodyClass).message }, "request refused");
    } else if (exchange.isAborted) {
      // The client went away (closed the tab, lost the network): an outcome, not our failure.
      logger.info(fields, "request aborted");
    } else if (exchange.error) {
      logger.error({ ...fields, err: exchange.error }, "request failed");
    } else {
      logger.info(fields, "request");
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false) {
    // A player given the base URL with a trailing slash asks for "//1/submit-listens": the
    // ListenBrainz API (/1/) is the same whatever the number of slashes before it (a leading
    // "//" would otherwise read as a host name further on).
    if (req.url && /^\/{2,}1(?:[/?]|$)/.test(req.url)) req.url = req.url.replace(/^\/{2,}/, "/");
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    try {
      if (pathname === "/healthz") {
        res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
        res.end(JSON.stringify({ status: "ok" }));
        return;
      }
      if (pathname === "/readyz") {
        const ready = !options.isShuttingDown() && (await options.isReady());
        res.writeHead(ready ? 200 : 503, {
          "Content-Type": "application/json",
          "Cache-Control": "no-store",
        });
        res.end(JSON.stringify({ status: ready ? "ready" : "unavailable" }));
        return;
      }
      if (pathname === "/metrics" && options.metrics) {
        const headers = { "Cache-Control": "no-store", ...options.securityHeaders };
        if (!bearerMatches(req.headers.authorization, options.metrics.token)) {
          res.writeHead(401, {
            ...headers,
            "Content-Type": "text/plain; charset=utf-8",
            "WWW-Authenticate": 'Bearer realm="metrics"',
          });
          res.end("A bearer token is required (METRICS_TOKEN).\n");
          return;
        }
        const { contentType, body } = await options.metrics.render();
        res.writeHead(200, { ...headers, "Content-Type": contentType });
        res.end(req.method === "HEAD" ? undefined : body);
        return;
      }
      await handleApp(req, res, pathname, expectsContinue);
    } catch (error) {
      logger.error({ err: error, method: req.method, path: pathname }, "request failed");
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
        res.end("Internal Server Error");
      } else {
        res.destroy();
      }
    }
  }

  return {
    /** For the server's `request` event. */
    onRequest(req: IncomingMessage, res: ServerResponse): void {
      void handle(req, res);
    },
    /**
     * For `checkContinue`: `100 Continue` goes out only when the body is about to be read, so
     * a body refused by its headers (too large, wrong type, foreign origin) is never sent.
     */
    onCheckContinue(req: IncomingMessage, res: ServerResponse): void {
      void handle(req, res, true);
    },
  };
}
