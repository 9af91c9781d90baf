import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { desc, isNull, lt, or, sql } from "drizzle-orm";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from "jose";
import { getDb } from "~/db/client.server";
import { authJwtKeys } from "~/db/schema";
import type { Env } from "~/lib/env.server";

/**
 * The keys that sign access tokens of the token API. ES256 (P-256), published as a JWKS at
 * `/auth/v1/.well-known/jwks.json`.
 *
 * They live in the database (`auth_jwt_keys`), so every instance on it signs with the same key
 * and publishes the same set, and a backup carries them. The newest live key signs; a rotation
 * (`npm run auth:rotate-key`) retires the current key, which then only verifies and stays
 * published until the last token it signed has expired (AUTH_JWT_EXPIRY plus a margin). The
 * first start generates a key (or takes over the keys of the old per-instance file
 * `DATA_DIR/auth-jwt-keys.json`, so tokens already handed out keep working).
 *
 * `AUTH_JWT_KEYS` (JSON `{ "keys": [<private JWK>, …] }`, the first key signs) overrides the
 * table when set; then it is the operator's to give every instance the same value.
 */
export const JWT_ALG = "ES256";
/** The file older versions kept the keys in, per instance; read once to carry them over. */
export const LEGACY_KEY_FILE = "auth-jwt-keys.json";
/** How long an instance signs with the key set it read before it reads the table again. */
const RELOAD_MS = 60_000;
/** A retired key stays published this long beyond the token lifetime (clock skew, the reload). */
const RETIRED_MARGIN_S = 300;
/** Serialises key creation and rotation across instances (any fixed bigint). */
const KEYS_LOCK = 7_140_040_001;

export interface SigningKeys {
  /** Signs new tokens. */
  current: { kid: string; key: CryptoKey };
  /** Public keys by `kid`, for verification and the JWKS. */
  verify: Map<string, CryptoKey>;
  jwks: { keys: JWK[] };
}

type KeysEnv = Pick<Env, "DATA_DIR" | "AUTH_JWT_KEYS" | "AUTH_JWT_EXPIRY">;

export async function newPrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: JWT_ALG, use: "sig" };
}

function parseKeyList(text: string, source: string): JWK[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${source} is not valid JSON`);
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error(`${source} must be { "keys": [<private JWK>, …] } with at least one key`);
  }
  for (const key of keys as JWK[]) checkPrivateJwk(key, source);
  return keys as JWK[];
}

function checkPrivateJwk(key: JWK, source: string): void {
  if (key.kty !== "EC" || key.crv !== "P-256" || typeof key.d !== "string") {
    throw new Error(`${source}: every key must be a private P-256 (ES256) JWK`);
  }
}

/** Builds the key set from private JWKs, the signing key first. */
async function buildKeys(keys: JWK[]): Promise<SigningKeys> {
  const verify = new Map<string, CryptoKey>();
  const published: JWK[] = [];
  let current: SigningKeys["current"] | undefined;
  for (const jwk of keys) {
    const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
    const { d: _private, ...publicJwk } = jwk;
    const publicKey = (await importJWK({ ...publicJwk, alg: JWT_ALG }, JWT_ALG)) as CryptoKey;
    verify.set(kid, publicKey);
    published.push({
      kty: publicJwk.kty,
      crv: publicJwk.crv,
      x: publicJwk.x,
      y: publicJwk.y,
      kid,
      alg: JWT_ALG,
      use: "sig",
      key_ops: ["verify"],
    });
    if (!current) {
      current = { kid, key: (await importJWK({ ...jwk, alg: JWT_ALG }, JWT_ALG)) as CryptoKey };
    }
  }
  if (!current) throw new Error("no signing key");
  return { current, verify, jwks: { keys: published } };
}

function publishedFor(expirySeconds: number) {
  return or(
    isNull(authJwtKeys.retiredAt),
    sql`${authJwtKeys.retiredAt} > now() - make_interval(secs => ${expirySeconds + RETIRED_MARGIN_S})`,
  );
}

/** The published keys, newest live one first (it signs). */
async function readKeyRows(expirySeconds: number): Promise<{ jwk: JWK; retired: boolean }[]> {
  const rows = await getDb()
    .select({
      kid: authJwtKeys.kid,
      privateJwk: authJwtKeys.privateJwk,
      retiredAt: authJwtKeys.retiredAt,
    })
    .from(authJwtKeys)
    .where(publishedFor(expirySeconds))
    .orderBy(
      sql`${authJwtKeys.retiredAt} is not null`,
      desc(authJwtKeys.createdAt),
      authJwtKeys.kid,
    );
  return rows.map((row) => ({
    jwk: { ...(row.privateJwk as JWK), kid: row.kid },
    retired: row.retiredAt !== null,
  }));
}

/** The keys of the old per-instance file, if this data directory has one. */
function legacyKeys(env: Pick<Env, "DATA_DIR">): JWK[] {
  const file = path.join(env.DATA_DIR, LEGACY_KEY_FILE);
  if (!existsSync(file)) return [];
  try {
    return parseKeyList(readFileSync(file, "utf8"), file);
  } catch {
    return [];
  }
}

/**
 * Makes sure a live key exists: the first instance to start creates it (or carries over the
 * old key file), under a lock so two instances starting at once agree on one key.
 */
async function ensureLiveKey(env: KeysEnv): Promise<void> {
  await getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK})`);
    const [live] = await tx
      .select({ kid: authJwtKeys.kid })
      .from(authJwtKeys)
      .where(isNull(authJwtKeys.retiredAt))
      .limit(1);
    if (live) return;
    const carried = legacyKeys(env);
    const keys = carried.length > 0 ? carried : [await newPrivateJwk()];
    const now = Date.now();
    for (const [index, jwk] of keys.entries()) {
      const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
      await tx
        .insert(authJwtKeys)
        .values({
          kid,
          privateJwk: jwk as Record<string, unknown>,
          // The file's first key signed: it stays the newest; the others only verify.
          createdAt: new Date(now - index * 1000),
          retiredAt: index === 0 ? null : new Date(now),
        })
        .onConflictDoNothing();
    }
  });
}

async function loadFromDatabase(env: KeysEnv): Promise<SigningKeys> {
  let rows = await readKeyRows(env.AUTH_JWT_EXPIRY);
  if (!rows.some((row) => !row.retired)) {
    await ensureLiveKey(env);
    rows = await readKeyRows(env.AUTH_JWT_EXPIRY);
  }
  return buildKeys(rows.map((row) => row.jwk));
}

let cached: { source: string; loadedAt: number; keys: Promise<SigningKeys> } | undefined;

/**
 * The signing keys. Read from the table at most once a minute per instance, and again at once
 * when `fresh` is asked (the JWKS, a token with a `kid` this instance has not seen yet).
 */
export async function getSigningKeys(
  env: KeysEnv,
  options: { fresh?: boolean } = {},
): Promise<SigningKeys> {
  if (env.AUTH_JWT_KEYS) {
    if (cached?.source !== "env") {
      cached = {
        source: "env",
        loadedAt: Date.now(),
        keys: buildKeys(parseKeyList(env.AUTH_JWT_KEYS, "AUTH_JWT_KEYS")),
      };
    }
    return cached.keys;
  }
  const now = Date.now();
  if (cached?.source !== "db" || options.fresh || now - cached.loadedAt > RELOAD_MS) {
    const keys = loadFromDatabase(env);
    cached = { source: "db", loadedAt: now, keys };
    keys.catch(() => {
      if (cached?.keys === keys) cached = undefined;
    });
  }
  return cached.keys;
}

/** True when the key set was read less than a second ago (no point reading it again). */
export function keysJustLoaded(): boolean {
  return cached !== undefined && Date.now() - cached.loadedAt < 1000;
}

/**
 * Rotates the keys in the table: a new key signs from now on, the previous ones only verify and
 * stay published until their tokens have expired; keys retired longer ago are deleted. Every
 * instance picks the new key up within a minute (at once for a token signed with it). Returns
 * the new key's `kid`.
 */
export async function rotateSigningKey(env: Pick<Env, "AUTH_JWT_EXPIRY">): Promise<string> {
  const fresh = await newPrivateJwk();
  const kid = fresh.kid ?? "";
  await getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK})`);
    await tx
      .update(authJwtKeys)
      .set({ retiredAt: sql`now()` })
      .where(isNull(authJwtKeys.retiredAt));
    await tx
      .delete(authJwtKeys)
      .where(
        lt(
          authJwtKeys.retiredAt,
          sql`now() - make_interval(secs => ${env.AUTH_JWT_EXPIRY + RETIRED_MARGIN_S})`,
        ),
      );
    await tx.insert(authJwtKeys).values({ kid, privateJwk: fresh as Record<string, unknown> });
  });
  cached = undefined;
  return kid;
}

/** Forgets the cached keys (tests switch databases). */
export function resetSigningKeys(): void {
  cached = undefined;
}
