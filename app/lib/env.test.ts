import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, publicEnv, requestConcurrency, resolveAuthSecret } from "./env.server";

describe("configuration", () => {
  it("has working defaults on a fresh machine", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.HOST).toBe("127.0.0.1");
    expect(env.BASE_URL).toBe("http://localhost:3000");
    expect(env.DATA_DIR).toBe(path.resolve("./data"));
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.ADMIN_EMAILS).toEqual([]);
    expect(env.TRUST_PROXY).toBe(false);
  });

  it("works on 2 requests at once on the embedded database, 8 on PostgreSQL, unless told", () => {
    expect(requestConcurrency(parseEnv({}))).toBe(2);
    expect(requestConcurrency(parseEnv({ DATABASE_URL: "postgres://u@db/soundtrail" }))).toBe(8);
    expect(requestConcurrency(parseEnv({ REQUEST_CONCURRENCY: "5" }))).toBe(5);
    expect(requestConcurrency(parseEnv({ REQUEST_CONCURRENCY: "0" }))).toBe(0);
    expect(() => parseEnv({ REQUEST_CONCURRENCY: "-1" })).toThrow(EnvError);
  });

  it("reads every documented variable", () => {
    const env = parseEnv({
      PORT: "8080",
      HOST: "0.0.0.0",
      BASE_URL: "https://music.example.org",
      DATA_DIR: "/var/lib/soundtrail",
      DATABASE_URL: "postgres://u:p@db:5432/soundtrail",
      SMTP_URL: "smtp://mail:25",
      MAIL_FROM: "Soundtrail <hi@music.example.org>",
      ADMIN_EMAILS: " Ana@Example.org, bo@example.org ",
      TRUST_PROXY: "true",
    });
    expect(env.PORT).toBe(8080);
    expect(env.BASE_URL).toBe("https://music.example.org");
    expect(env.DATA_DIR).toBe("/var/lib/soundtrail");
    expect(env.DATABASE_URL).toBe("postgres://u:p@db:5432/soundtrail");
    expect(env.ADMIN_EMAILS).toEqual(["ana@example.org", "bo@example.org"]);
    expect(env.TRUST_PROXY).toBe(true);
  });

  it("reads the operations variables: maintenance interval and metrics token", () => {
    expect(parseEnv({}).MAINTENANCE_INTERVAL_MINUTES).toBe(60);
    expect(parseEnv({}).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_TOKEN: "  " }).METRICS_TOKEN).toBeUndefined();
    const env = parseEnv({
      MAINTENANCE_INTERVAL_MINUTES: "0",
      METRICS_TOKEN: "a-long-enough-token-123",
    });
    expect(env.MAINTENANCE_INTERVAL_MINUTES).toBe(0);
    expect(env.METRICS_TOKEN).toBe("a-long-enough-token-123");
    expect(() => parseEnv({ METRICS_TOKEN: "short" })).toThrow(
      /METRICS_TOKEN: must be at least 16/,
    );
    expect(() => parseEnv({ MAINTENANCE_INTERVAL_MINUTES: "-5" })).toThrow(
      /MAINTENANCE_INTERVAL_MINUTES/,
    );
    expect(() => parseEnv({ MAINTENANCE_INTERVAL_MINUTES: "soon" })).toThrow(
      /MAINTENANCE_INTERVAL_MINUTES: must be a number of minutes/,
    );
  });

  it("reads the embedded database's shared buffers", () => {
    expect(parseEnv({}).PGLITE_SHARED_BUFFERS_MB).toBe(32);
    expect(parseEnv({ PGLITE_SHARED_BUFFERS_MB: "128" }).PGLITE_SHARED_BUFFERS_MB).toBe(128);
    expect(() => parseEnv({ PGLITE_SHARED_BUFFERS_MB: "0" })).toThrow(
      /PGLITE_SHARED_BUFFERS_MB: must be at least 1/,
    );
    expect(() => parseEnv({ PGLITE_SHARED_BUFFERS_MB: "lots" })).toThrow(
      /PGLITE_SHARED_BUFFERS_MB: must be a number of megabytes/,
    );
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "", SMTP_URL: " " }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    [{ PORT: "eighty" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ BASE_URL: "not a url" }, "BASE_URL"],
    [{ SMTP_URL: "http://mail" }, "SMTP_URL"],
    [{ ADMIN_EMAILS: "ana@example.org, nope" }, "ADMIN_EMAILS"],
    [{ TRUST_PROXY: "maybe" }, "TRUST_PROXY"],
    [{ AUTH_SECRET: "short" }, "AUTH_SECRET"],
  ])("refuses %o with a message naming %s", (source, variable) => {
    let caught: unknown;
    try {
      parseEnv(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EnvError);
    expect((caught as EnvError).message).toContain(variable);
  });

  it("generates AUTH_SECRET once into DATA_DIR with mode 600 and reuses it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "st-env-"));
    const first = resolveAuthSecret({ DATA_DIR: dir, AUTH_SECRET: undefined });
    const second = resolveAuthSecret({ DATA_DIR: dir, AUTH_SECRET: undefined });
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(second).toBe(first);
    const file = path.join(dir, "auth-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("prefers an AUTH_SECRET from the environment", () => {
    const secret = "x".repeat(40);
    expect(resolveAuthSecret({ DATA_DIR: "/nonexistent", AUTH_SECRET: secret })).toBe(secret);
  });

  it("shows the browser only the names of configured OAuth providers", () => {
    const env = parseEnv({ GITHUB_CLIENT_ID: "id", GITHUB_CLIENT_SECRET: "secret" });
    expect(publicEnv(env)).toEqual({ oauthProviders: ["github"] });
    expect(JSON.stringify(publicEnv(env))).not.toContain("secret");
  });
});
