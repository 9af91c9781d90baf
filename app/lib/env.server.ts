import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const flag = z
  .enum(["1", "0", "true", "false", "on", "off", "yes", "no", ""])
  .default("off")
  .transform((v) => ["1", "true", "on", "yes"].includes(v));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** A comma list: its trimmed, non-empty items. */
const commaList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

/**
 * PGlite's shared buffers unless PGLITE_SHARED_BUFFERS_MB says otherwise: PostgreSQL's own
 * default is 128 MB, which made the embedded server 600 MB resident under load (bench/HISTORY.md,
 * issue 17 item 6). The database's files stay in the operating system's page cache either way.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS_MB = 32;

/** The environment as the process sees it; every variable is documented in README §Configuration. */
export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    DATA_DIR: z.string().min(1).default("./data"),
    DATABASE_URL: optionalString.pipe(
      z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" }).optional(),
    ),
    AUTH_SECRET: optionalString.pipe(
      z.string().min(32, "must be at least 32 characters").optional(),
    ),
    /** Token API signing keys: JSON `{ "keys": [<private P-256 JWK>, …] }`, first one signs. */
    AUTH_JWT_KEYS: optionalString,
    /** Lifetime of token API access tokens, in seconds. */
    AUTH_JWT_EXPIRY: z.coerce
      .number({ error: "must be a number of seconds" })
      .int()
      .min(30, "must be at least 30")
      .max(86400, "must be at most 86400")
      .default(3600),
    /**
     * Where the token API's OAuth flow may send its one-time code (`redirect_to`), besides
     * BASE_URL itself: a comma list of URL prefixes, e.g. `myapp://auth,https://app.example/`.
     */
    AUTH_REDIRECT_URLS: commaList,
    SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
    MAIL_FROM: z.string().min(3).default("Soundtrail <no-reply@localhost>"),
    SMS_WEBHOOK_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    ADMIN_EMAILS: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(z.email("must be a comma-separated list of e-mail addresses"))),
    TRUST_PROXY: flag,
    /**
     * Unit tests only, ignored unless NODE_ENV is "test": scrypt's cost (log2 N) for new
     * password hashes, cheaper than production's 17 so the suites' hundreds of sign-ups do not
     * spend minutes hashing. Hashes record their cost, so any of them verifies.
     */
    TEST_PASSWORD_HASH_LOG_N: z.coerce
      .number({ error: "must be a whole number from 10 to 17" })
      .int("must be a whole number from 10 to 17")
      .min(10, "must be at least 10")
      .max(17, "must be at most 17")
      .optional(),
    /** Serves `/bench/fixture` (bench/feed-ssr.ts); set only by the bench's own server. */
    SOUNDTRAIL_BENCH: flag,
    /** `SEED_DEMO=1 npm start`: adds the demo community as the server starts (README, Demo data). */
    SEED_DEMO: flag,
    /**
     * On SIGTERM, how long to keep serving (with /readyz already 503) before closing, so a load
     * balancer stops sending first and requests on the wire still get answers.
     */
    SHUTDOWN_DRAIN_SECONDS: z.coerce
      .number({ error: "must be a number of seconds" })
      .min(0, "must be 0 or more")
      .max(120, "must be at most 120")
      .default(2),
    /**
     * App requests worked on at once (0: no bound); more wait their turn in arrival order, which
     * keeps the slowest answers close to the typical one under load (server/admission.ts).
     * Unset: see `requestConcurrency`.
     */
    REQUEST_CONCURRENCY: z.coerce
      .number({ error: "must be a number of requests" })
      .int("must be a whole number")
      .min(0, "must be 0 (no bound) or more")
      .max(1000, "must be at most 1000")
      .optional(),
    /** Requests that may wait for a turn; one more gets a 503 with Retry-After at once. */
    REQUEST_QUEUE_LIMIT: z.coerce
      .number({ error: "must be a number of requests" })
      .int("must be a whole number")
      .min(0, "must be 0 or more")
      .max(100_000, "must be at most 100000")
      .default(500),
    /**
     * The embedded database's shared buffers, in MB (PGlite only; a PostgreSQL server has its
     * own postgresql.conf). They stay resident once used: the server's memory is mostly this.
     */
    PGLITE_SHARED_BUFFERS_MB: z.coerce
      .number({ error: "must be a number of megabytes" })
      .int("must be a whole number of megabytes")
      .min(1, "must be at least 1")
      .max(16_384, "must be at most 16384")
      .default(DEFAULT_PGLITE_SHARED_BUFFERS_MB),
    /**
     * Database maintenance every this many minutes (0: never): purges expired rows everywhere,
     * and on the embedded database vacuums and analyzes (docs/decisions/019).
     */
    MAINTENANCE_INTERVAL_MINUTES: z.coerce
      .number({ error: "must be a number of minutes" })
      .int("must be a whole number of minutes")
      .min(0, "must be 0 (off) or more")
      .max(10_080, "must be at most 10080 (a week)")
      .default(60),
    /** When set, /metrics answers (Prometheus text) to `Authorization: Bearer <token>`. */
    METRICS_TOKEN: optionalString.pipe(
      z.string().min(16, "must be at least 16 characters").optional(),
    ),
    LOG_LEVEL: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .default("info"),
    LLM_BASE_URL: optionalString.pipe(z.url().optional()),
    LLM_API_KEY: optionalString,
    LLM_MODEL: optionalString,
    /** How long the language model may stay silent before the built-in assistant answers. */
    LLM_TIMEOUT_SECONDS: z.coerce
      .number({ error: "must be a number of seconds" })
      .min(1, "must be at least 1")
      .max(600, "must be at most 600")
      .default(20),
    /**
     * Link unfurling (title, artist and artwork of streaming links, fetched from the services):
     * `on` or `off`; unset means on, except under NODE_ENV=test or CI, where nothing may reach
     * the internet unless a test configures a local fake service.
     */
    UNFURL_LINKS: z.enum(["on", "off", ""]).optional(),
    /**
     * The token API's sign-up without a confirmation step (GoTrue's mailer and SMS
     * autoconfirm): `POST /auth/v1/signup` answers with a session. Off by default.
     */
    AUTH_AUTOCONFIRM: z
      .enum(["true", "false", "on", "off", "1", "0", ""], {
        error: "must be true or false",
      })
      .optional()
      .transform((value) => value === "true" || value === "on" || value === "1"),
    /**
     * ActivityPub federation (docs/decisions/038-federation.md): `on` (the default) or `off`.
     * Off, the server answers none of WebFinger, NodeInfo, actors or inboxes and sends nothing.
     */
    FEDERATION: z.enum(["on", "off", ""], { error: "must be on or off" }).optional(),
    /**
     * For tests and local development only: remote servers on loopback addresses (127.0.0.0/8,
     * ::1, localhost), over plain HTTP and any port, may be fetched and delivered to. Every
     * other private address stays refused.
     */
    FEDERATION_ALLOW_LOOPBACK: z
      .enum(["true", "false", "on", "off", "1", "0", ""], { error: "must be true or false" })
      .optional()
      .transform((value) => value === "true" || value === "on" || value === "1"),
    /** Set by CI systems; only read for the default of UNFURL_LINKS. */
    CI: optionalString,
    /**
     * oEmbed endpoints, one per service; unset, the service's own. Set, the server there is
     * trusted as it is (plain HTTP and private addresses allowed): a local fake in tests.
     */
    UNFURL_SPOTIFY_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    UNFURL_YOUTUBE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    UNFURL_SOUNDCLOUD_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    UNFURL_DEEZER_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    UNFURL_TIDAL_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    /** Pages read for Open Graph tags: unset, the link's own page; set, this origin's instead. */
    UNFURL_BANDCAMP_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    UNFURL_APPLE_MUSIC_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    /**
     * Origins players may be framed from besides the services' own (comma list), e.g. a fake
     * service in browser tests; the CSP's frame-src names exactly the services plus these.
     */
    PLAYER_FRAME_ORIGINS: commaList
      .pipe(z.array(z.url({ protocol: /^https?$/, error: "must be a comma list of origins" })))
      .transform((list) => list.map((u) => new URL(u).origin)),
    SPOTIFY_CLIENT_ID: optionalString,
    SPOTIFY_CLIENT_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    GITHUB_CLIENT_ID: optionalString,
    GITHUB_CLIENT_SECRET: optionalString,
  })
  .transform((env) => ({
    ...env,
    BASE_URL: env.BASE_URL ?? `http://localhost:${env.PORT}`,
    DATA_DIR: path.resolve(env.DATA_DIR),
    FEDERATION: env.FEDERATION !== "off",
    UNFURL_LINKS: env.UNFURL_LINKS
      ? env.UNFURL_LINKS === "on"
      : env.NODE_ENV !== "test" && !isCiFlag(env.CI),
  }));

function isCiFlag(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  constructor(public readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/** Parses an environment object; throws EnvError naming every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new EnvError(
      result.error.issues.map((issue) => `${issue.path.join(".") || "(env)"}: ${issue.message}`),
    );
  }
  return result.data;
}

/**
 * Returns AUTH_SECRET, generating it once into DATA_DIR/auth-secret (mode 600) when unset,
 * so sessions survive restarts without any setup.
 */
export function resolveAuthSecret(env: Pick<Env, "AUTH_SECRET" | "DATA_DIR">): string {
  if (env.AUTH_SECRET) return env.AUTH_SECRET;
  const file = path.join(env.DATA_DIR, "auth-secret");
  if (existsSync(file)) {
    const stored = readFileSync(file, "utf8").trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(env.DATA_DIR, { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

let current: Env | undefined;

/** The validated environment of this process (parsed once, on first use). */
export function getEnv(): Env {
  current ??= parseEnv(process.env);
  return current;
}

/**
 * App requests worked on at once. Unset, 2 on the embedded database and 8 on a PostgreSQL server:
 * PGlite runs its queries on the server's own thread, so a third render only slices the same
 * core finer (bench/HISTORY.md: 2 at a time gave /feed p99 ÷ p50 1.14 at 50 connections and 45 %
 * more requests a second than 8), while a PostgreSQL server works beside it.
 */
export function requestConcurrency(env: Pick<Env, "REQUEST_CONCURRENCY" | "DATABASE_URL">): number {
  return env.REQUEST_CONCURRENCY ?? (env.DATABASE_URL ? 8 : 2);
}

/** The subset of configuration that may reach the browser. */
export function publicEnv(env: Env) {
  return {
    oauthProviders: (
      [
        ["spotify", env.SPOTIFY_CLIENT_ID && env.SPOTIFY_CLIENT_SECRET],
        ["google", env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET],
        ["github", env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET],
      ] as const
    )
      .filter(([, isConfigured]) => Boolean(isConfigured))
      .map(([name]) => name),
  };
}
