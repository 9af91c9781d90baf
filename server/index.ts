import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as serverBuild from "virtual:react-router/server-build";
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from "react-router";
import { logger } from "~/core/logger.server";
import { CLIENT_IP_HEADER } from "~/lib/client-ip";
import { EnvError, parseEnv, requestConcurrency } from "~/lib/env.server";
import { baseSecurityHeaders } from "~/security.server";
import { AdmissionQueue } from "./admission";
import { createNodeHandler } from "./http-handler";
import { createRouteLabeler } from "./metrics-route";
import { allowedOrigins } from "./origin";
import { databaseUnavailableResponse } from "./unavailable";

/** What app/entry.server.tsx exports besides the renderer. */
interface AppEntry {
  bootstrap(): Promise<unknown>;
  /** A one-time setup link's token while nobody is admin (docs/decisions/035-first-admin.md). */
  prepareFirstAdminSetup(): Promise<string | null>;
  /** Adds the demo community (SEED_DEMO=1); returns what it did, in one sentence. */
  seedDemo(): Promise<string>;
  shutdown(): Promise<void>;
  /** Ends open live event streams, so that closing the server does not wait for them. */
  endLiveStreams(): void;
  isReady(): Promise<boolean>;
  /** Tells background jobs how many requests wait for a turn (they let those go first). */
  countWaitingRequestsWith(count: () => number): void;
  /** Runs one request, collecting the work it defers until after its answer. */
  collectAfterResponse<T>(handle: () => Promise<T>): Promise<{ result: T; flush: () => void }>;
  /** True when the request with this context failed because the database was unreachable. */
  wasDatabaseUnavailable(context: RouterContextProvider): boolean;
  /** Counts one answered request for /metrics (app/core/metrics.server.ts). */
  observeRequest(info: { route: string; method: string; status: number; seconds: number }): void;
  renderMetrics(): Promise<{ contentType: string; body: string }>;
  /** Shows the admission queue's depth in /metrics. */
  watchAdmission(stats: () => { active: number; waiting: number }): void;
  /** Counts a request refused because the admission queue was full. */
  countShedRequest(): void;
  /** ActivityPub (WebFinger, NodeInfo, actors, inboxes): answered by federation, not React Router. */
  isFederationRequest(request: Request): boolean;
  handleFederationRequest(
    request: Request,
    fallback: (request: Request) => Promise<Response>,
  ): Promise<Response>;
  createLoadContext(info: {
    requestId: string;
    nonce: string;
    clientAddress: string;
    buildId: string;
  }): RouterContextProvider;
}

function fail(message: string): never {
  logger.fatal(message);
  process.stderr.write(`\n${message}\n\n`);
  process.exit(1);
}

let env: ReturnType<typeof parseEnv>;
try {
  env = parseEnv(process.env);
} catch (error) {
  if (error instanceof EnvError) fail(error.message);
  throw error;
}

// This file is built with the app (vite.config.ts): build/server/server.js, next to the server
// build it imports; the browser's files are in build/client.
const clientDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "client");
if (!existsSync(clientDir)) fail(`No client build at ${clientDir}. Run "npm run build" first.`);

const build: ServerBuild = serverBuild;
const app = build.entry.module as unknown as AppEntry;
const buildId = (() => {
  try {
    return (
      JSON.parse(readFileSync(path.join(clientDir, "version.json"), "utf8")) as { id: string }
    ).id;
  } catch {
    return build.assets.version;
  }
})();

let setupToken: string | null = null;
try {
  await app.bootstrap();
  if (env.SEED_DEMO) logger.info(await app.seedDemo());
  setupToken = await app.prepareFirstAdminSetup();
} catch (error) {
  fail(`Soundtrail could not start: ${(error as Error).message}`);
}

const mode = env.NODE_ENV === "development" ? "development" : "production";
// The build's routes are already behind the app's edge (vite.config.ts, atTheServerEdge).
const handleDocument = createRequestHandler(build, mode);
let shuttingDown = false;

/** Per request: starts what it deferred until after its answer (see after-response.server.ts). */
const afterResponse = new Map<string, () => void>();

const admission =
  requestConcurrency(env) > 0
    ? new AdmissionQueue({
        concurrency: requestConcurrency(env),
        queueLimit: env.REQUEST_QUEUE_LIMIT,
        // On PGlite one heavy request at a time: they share the one connection and thread.
        heavyConcurrency: env.DATABASE_URL ? 2 : 1,
      })
    : null;
app.countWaitingRequestsWith(() => admission?.stats.waiting ?? 0);
if (admission) app.watchAdmission(() => admission.stats);

const handler = createNodeHandler({
  async handleRequest(request, facts) {
    // Rate limits read the client from this header only; whatever the client sent is replaced.
    request.headers.set(CLIENT_IP_HEADER, facts.clientAddress);
    const context = app.createLoadContext({
      requestId: facts.requestId,
      nonce: randomBytes(16).toString("base64"),
      clientAddress: facts.clientAddress,
      buildId,
    });
    const { result: response, flush } = await app.collectAfterResponse(() =>
      app.isFederationRequest(request)
        ? app.handleFederationRequest(request, (req) => handleDocument(req, context))
        : handleDocument(request, context),
    );
    afterResponse.set(facts.requestId, flush);
    // A database outage is not a bug of this request: 503 with Retry-After and a clear page,
    // not the error page's 500 (the one log line was written, rate limited, by handleError).
    if (response.status >= 500 && app.wasDatabaseUnavailable(context)) {
      return databaseUnavailableResponse(request, response, baseSecurityHeaders);
    }
    return response;
  },
  onExchangeEnd(requestId) {
    afterResponse.get(requestId)?.();
    afterResponse.delete(requestId);
  },
  isReady: () => app.isReady(),
  isShuttingDown: () => shuttingDown,
  clientDir,
  allowedOrigins: allowedOrigins(env.BASE_URL),
  trustProxy: env.TRUST_PROXY,
  securityHeaders: baseSecurityHeaders,
  logger,
  metrics: env.METRICS_TOKEN
    ? { token: env.METRICS_TOKEN, render: () => app.renderMetrics() }
    : null,
  admission,
  onShed: () => app.countShedRequest(),
});

/** The route id a request is counted under in /metrics (never the raw URL). */
const routeOf = createRouteLabeler(build.routes, clientDir);

/** Requests in progress per connection: a connection with none may be closed at shutdown. */
const inProgress = new Map<Socket, number>();
/** Connections that have sent at least one request (the others may have one on its way). */
const served = new WeakSet<Socket>();
/**
 * How long a connection accepted just before shutdown, that has not sent its request yet, is
 * given to send it (it is then answered, with `Connection: close`) before it is closed.
 */
const FRESH_CONNECTION_GRACE_MS = 2_000;

const server = http.createServer((request, response) => {
  // Once shutting down, no connection is kept for another request: clients open a new one,
  // to another instance, instead of finding this one closed under them.
  if (shuttingDown) response.setHeader("Connection", "close");
  const socket = request.socket;
  served.add(socket);
  inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
  const started = performance.now();
  response.once("close", () => {
    inProgress.set(socket, (inProgress.get(socket) ?? 1) - 1);
    const method = request.method ?? "GET";
    app.observeRequest({
      route: routeOf((request.url ?? "/").split("?")[0] ?? "/"),
      method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].includes(method)
        ? method
        : "other",
      status: response.statusCode,
      seconds: (performance.now() - started) / 1000,
    });
  });
  handler.onRequest(request, response);
});
server.on("connection", (socket) => {
  inProgress.set(socket, 0);
  socket.once("close", () => inProgress.delete(socket));
});

/**
 * Closes kept-alive connections with no request in progress. A connection that never sent a
 * request may have one in flight (the client connected just before the listener closed):
 * destroying it would reset that request, so it gets a short grace to send it, and is closed
 * only if it stays silent.
 */
function closeIdleSockets(): void {
  server.closeIdleConnections();
  for (const [socket, count] of inProgress) {
    if (count > 0) continue;
    if (served.has(socket)) socket.destroy();
    else if (!graced.has(socket)) {
      graced.add(socket);
      socket.setTimeout(FRESH_CONNECTION_GRACE_MS, () => {
        if ((inProgress.get(socket) ?? 0) <= 0) socket.destroy();
      });
    }
  }
}
const graced = new WeakSet<Socket>();
server.on("checkContinue", handler.onCheckContinue);

server.keepAliveTimeout = 65_000;

server.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") {
    void app
      .shutdown()
      .finally(() =>
        fail(`Port ${env.PORT} on ${env.HOST} is already in use. Set PORT to another port.`),
      );
    return;
  }
  void app.shutdown().finally(() => fail(`The server failed: ${error.message}`));
});

server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.info(
    { host: env.HOST, port, baseUrl: env.BASE_URL },
    `Soundtrail listening on http://${env.HOST}:${port} — open ${env.BASE_URL}`,
  );
  // Until someone is admin: the way to become the first one from the browser (one time).
  if (setupToken) {
    logger.info(
      { setup: true },
      `No administrator yet: sign up, then open ${env.BASE_URL}/setup/${setupToken} to become one`,
    );
  }
});

/**
 * Mark not ready (/readyz answers 503) and keep serving for the drain period (SIGTERM only:
 * Ctrl-C in a terminal stops at once), then stop accepting, let in-flight requests finish and
 * close the database. PGlite writes its files on close, so the process must not exit before.
 */
async function gracefulShutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  const drainMs = signal === "SIGTERM" ? env.SHUTDOWN_DRAIN_SECONDS * 1000 : 0;
  logger.info({ signal, drainMs }, "shutting down");
  if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
  const force = setTimeout(() => {
    logger.warn("in-flight requests did not finish in 10 s; closing connections");
    server.closeAllConnections();
  }, 10_000);
  force.unref();
  app.endLiveStreams();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    closeIdleSockets();
    // The live streams just ended finish their responses a few ticks later and only then turn
    // into idle keep-alive connections; close those as they appear.
    const sweep = setInterval(closeIdleSockets, 100);
    sweep.unref();
    server.once("close", () => clearInterval(sweep));
  });
  clearTimeout(force);
  try {
    await app.shutdown();
    logger.info("database closed; bye");
  } catch (error) {
    logger.error({ err: error }, "error while closing the database");
    process.exitCode = 1;
  }
  process.exit();
}

// The last line of defence, not the design: every request path above answers its own failures
// (http-handler.ts never rejects). Should something still escape, one bad request must not take
// the process — and every other person's requests — down with it.
process.on("uncaughtException", (error, origin) => {
  logger.error({ err: error, origin }, "uncaught exception; still serving");
});
process.on("unhandledRejection", (reason) => {
  logger.error({ err: reason }, "unhandled promise rejection; still serving");
});

process.on("SIGTERM", () => void gracefulShutdown("SIGTERM"));
process.on("SIGINT", () => void gracefulShutdown("SIGINT"));
