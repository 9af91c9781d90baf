#!/usr/bin/env node
// The topology of deploy/compose.yaml without Docker: PostgreSQL (Debian's postgresql, started
// with pg_ctlcluster when it is not running), two Soundtrail instances (node build/server.mjs)
// and Caddy (Debian's caddy) with deploy/Caddyfile, all as plain processes.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/soundtrail node deploy/run-topology.mjs
//
// Options (environment): PROXY_PORT (8080), APP_PORTS ("3001,3002"), SOUNDTRAIL_BUILD_DIR
// (build; run `npm run build` first), AUTH_SECRET (one is generated for the run otherwise),
// TOPOLOGY_DATA_DIR (a temporary directory). Everything else in the environment (METRICS_TOKEN,
// SMTP_URL …) is passed to both instances.
//
// Once everything answers it prints one JSON line:
//   {"ready":true,"proxy":"http://127.0.0.1:8080","instances":[{"name":"app1","pid":…,"port":…},…],"caddyPid":…}
// and keeps running; SIGTERM or SIGINT stops the instances (gracefully) and Caddy. It exits
// non-zero when something does not start.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const log = (line) => process.stderr.write(`[topology] ${line}\n`);

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  log("DATABASE_URL is required (the PostgreSQL database both instances share).");
  process.exit(2);
}
const proxyPort = Number(process.env.PROXY_PORT ?? 8080);
const appPorts = (process.env.APP_PORTS ?? "3001,3002").split(",").map(Number);
const buildDir = path.resolve(ROOT, process.env.SOUNDTRAIL_BUILD_DIR ?? "build");
if (!existsSync(path.join(buildDir, "server.mjs"))) {
  log(`No build in ${buildDir}: run npm run build first.`);
  process.exit(2);
}
const ownDataDir = !process.env.TOPOLOGY_DATA_DIR;
const dataDir = process.env.TOPOLOGY_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), "st-topology-"));
const authSecret = process.env.AUTH_SECRET ?? randomBytes(48).toString("base64url");
const base = `http://127.0.0.1:${proxyPort}`;

// --- PostgreSQL ---------------------------------------------------------------------------

function postgresReady() {
  const url = new URL(databaseUrl);
  const result = spawnSync("pg_isready", ["-h", url.hostname, "-p", url.port || "5432", "-q"]);
  return result.status === 0;
}

if (!postgresReady()) {
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : [];
  if (versions.length === 0) {
    log("PostgreSQL is not running and no Debian cluster was found (apt-get install postgresql).");
    process.exit(2);
  }
  log(`starting PostgreSQL ${versions[0]} (pg_ctlcluster)`);
  spawnSync("pg_ctlcluster", ["--skip-systemctl-redirect", versions[0], "main", "start"], {
    stdio: "inherit",
  });
  for (let i = 0; i < 30 && !postgresReady(); i++) await new Promise((r) => setTimeout(r, 1000));
  if (!postgresReady()) {
    log("PostgreSQL did not start.");
    process.exit(2);
  }
}

// --- Processes ----------------------------------------------------------------------------

const children = [];
let stopping = false;

function start(name, command, args, env) {
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => process.stderr.write(`[${name}] ${d}`));
  child.stderr.on("data", (d) => process.stderr.write(`[${name}] ${d}`));
  child.on("exit", (code, signal) => {
    if (!stopping) log(`${name} exited (${signal ?? code})`);
  });
  children.push({ name, child });
  return child;
}

/** The instances' environment: what compose.yaml's x-app gives them. */
const appEnv = (name, port) => {
  const env = { ...process.env };
  for (const key of ["TOPOLOGY_DATA_DIR", "PROXY_PORT", "APP_PORTS"]) delete env[key];
  const instanceDir = path.join(dataDir, name);
  mkdirSync(instanceDir, { recursive: true });
  return {
    ...env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: authSecret,
    BASE_URL: process.env.BASE_URL ?? base,
    HOST: "127.0.0.1",
    PORT: String(port),
    TRUST_PROXY: "on",
    DATA_DIR: instanceDir,
    SOUNDTRAIL_BUILD_DIR: buildDir,
    SHUTDOWN_DRAIN_SECONDS: process.env.SHUTDOWN_DRAIN_SECONDS ?? "0",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  };
};

async function waitReady(url, what, child) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited before it was ready`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready in 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stopAll() {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const force = setTimeout(() => child.kill("SIGKILL"), 20_000);
          child.once("exit", () => {
            clearTimeout(force);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    ),
  );
  if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
}

process.on("SIGTERM", () => void stopAll().then(() => process.exit(0)));
process.on("SIGINT", () => void stopAll().then(() => process.exit(0)));

try {
  const instances = appPorts.map((port, i) => {
    const name = `app${i + 1}`;
    const child = start(
      name,
      process.execPath,
      [path.join(buildDir, "server.mjs")],
      appEnv(name, port),
    );
    return { name, port, child };
  });
  // The first instance applies the migrations, the other waits on the advisory lock.
  await Promise.all(
    instances.map((i) => waitReady(`http://127.0.0.1:${i.port}/readyz`, i.name, i.child)),
  );

  const caddyHome = path.join(dataDir, "caddy");
  mkdirSync(caddyHome, { recursive: true });
  const caddy = start(
    "caddy",
    process.env.CADDY ?? "caddy",
    ["run", "--config", path.join(ROOT, "deploy/Caddyfile"), "--adapter", "caddyfile"],
    {
      PATH: process.env.PATH,
      HOME: caddyHome,
      XDG_DATA_HOME: path.join(caddyHome, "data"),
      XDG_CONFIG_HOME: path.join(caddyHome, "config"),
      SOUNDTRAIL_SITE: `:${proxyPort}`,
      SOUNDTRAIL_UPSTREAMS: appPorts.map((p) => `127.0.0.1:${p}`).join(" "),
    },
  );
  caddy.on("error", (error) =>
    log(`caddy could not start: ${error.message} (apt-get install caddy)`),
  );
  await waitReady(`${base}/readyz`, "caddy", caddy);

  process.stdout.write(
    `${JSON.stringify({
      ready: true,
      proxy: base,
      instances: instances.map((i) => ({ name: i.name, pid: i.child.pid, port: i.port })),
      caddyPid: caddy.pid,
    })}\n`,
  );
} catch (error) {
  log(error.message);
  await stopAll();
  process.exit(1);
}
