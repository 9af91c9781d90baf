import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestListener } from "@mjackson/node-fetch-server";
import pino from "pino";
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from "react-router";
import { CLIENT_IP_HEADER } from "../app/lib/client-ip";
import { EnvError, parseEnv } from "../app/lib/env.server";
import { baseSecurityHeaders } from "../app/lib/security.server";
import { clientAddress } from "./client-address";
import { checkOrigin } from "./origin";
import { serveStatic } from "./static";

/** What app/entry.server.tsx exports besides the renderer. */
interface AppEntry {
  bootstrap(): Promise<unknown>;
  shutdown(): Promise<void>;
  /** Ends open live event streams, so that closing the server does not wait for them. */
  endLiveStreams(): void;
  isReady(): Promise<boolean>;
  createLoadContext(info: {
    requestId: string;
    nonce: string;
    clientAddress: string;
    buildId: string;
  }): RouterContextProvider;
}

const logger = pino({
  level: process.env.LOG_LEVEL ?? "info",
  base: { service: "soundtrail" },
  timestamp: pino.stdTimeFunctions.isoTime,
});

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

const buildDir = path.resolve(process.env.SOUNDTRAIL_BUILD_DIR ?? "build");
const serverBuildFile = path.join(buildDir, "server", "index.js");
const clientDir = path.join(buildDir, "client");
if (!existsSync(serverBuildFile)) fail(`No build found at ${buildDir}. Run "npm run build" first.`);

const build = (await import(pathToFileURL(serverBuildFile).href)) as ServerBuild;
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

try {
  await app.bootstrap();
} catch (error) {
  fail(`Soundtrail could not start: ${(error as Error).message}`);
}

const mode = env.NODE_ENV === "development" ? "development" : "production";
const handleDocument = createRequestHandler(build, mode);
const allowedOrigins = [new URL(env.BASE_URL).origin];

const fetchHandler = createRequestListener(async (request, client) => {
  const started = performance.now();
  const requestId = request.headers.get("X-Request-Id")?.slice(0, 64) || randomUUID();
  let response: Response;
  const refusal = checkOrigin(request, allowedOrigins);
  if (refusal) {
    response = new Response("Forbidden: this request did not come from Soundtrail.", {
      status: 403,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  } else {
    const address = clientAddress(
      client.address,
      request.headers.get("X-Forwarded-For"),
      env.TRUST_PROXY,
    );
    // Rate limits read the client from this header only; whatever the client sent is replaced.
    request.headers.set(CLIENT_IP_HEADER, address);
    const context = app.createLoadContext({
      requestId,
      nonce: randomBytes(16).toString("base64"),
      clientAddress: address,
      buildId,
    });
    response = await handleDocument(request, context);
  }
  for (const [name, value] of Object.entries(baseSecurityHeaders)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  response.headers.set("X-Request-Id", requestId);
  const url = new URL(request.url);
  logger.info(
    {
      requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round(performance.now() - started),
    },
    "request",
  );
  return response;
});

let shuttingDown = false;

const server = http.createServer(async (req, res) => {
  const pathname = (req.url ?? "/").split("?")[0] ?? "/";
  if (pathname === "/healthz") {
    res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" });
    res.end(JSON.stringify({ status: "ok" }));
    return;
  }
  if (pathname === "/readyz") {
    const ready = !shuttingDown && (await app.isReady());
    res.writeHead(ready ? 200 : 503, {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
    });
    res.end(JSON.stringify({ status: ready ? "ready" : "unavailable" }));
    return;
  }
  try {
    // Headers are set on `res` only for files served here: headers set before the hand-off to
    // React Router would make Node keep only the last of several Set-Cookie headers.
    if (await serveStatic(req, res, clientDir, pathname, baseSecurityHeaders)) return;
  } catch (error) {
    logger.error({ err: error, path: pathname }, "static file error");
    if (!res.headersSent) res.statusCode = 500;
    res.end();
    return;
  }
  fetchHandler(req, res);
});

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
  throw error;
});

server.listen(env.PORT, env.HOST, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.info(
    { host: env.HOST, port, baseUrl: env.BASE_URL },
    `Soundtrail listening on http://${env.HOST}:${port}`,
  );
});

/**
 * Stop accepting, let in-flight requests finish, then close the database. PGlite writes its
 * files on close, so the process must not exit before that resolves.
 */
async function gracefulShutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal }, "shutting down");
  const force = setTimeout(() => {
    logger.warn("in-flight requests did not finish in 10 s; closing connections");
    server.closeAllConnections();
  }, 10_000);
  force.unref();
  app.endLiveStreams();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // The live streams just ended finish their responses a few ticks later and only then turn
    // into idle keep-alive connections; close those as they appear.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
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

process.on("SIGTERM", () => void gracefulShutdown("SIGTERM"));
process.on("SIGINT", () => void gracefulShutdown("SIGINT"));
