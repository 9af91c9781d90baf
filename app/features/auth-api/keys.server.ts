import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from "jose";
import type { Env } from "~/lib/env.server";

/**
 * The keys that sign access tokens of the token API. ES256 (P-256), published as a JWKS at
 * `/auth/v1/.well-known/jwks.json`. The first key signs; every key in the list is published, so
 * tokens signed by the previous key keep verifying until they expire, and a key added second is
 * published before anything is signed with it (rotation without downtime, see ADR 016).
 *
 * The list is `AUTH_JWT_KEYS` (JSON `{ "keys": [<private JWK>, …] }`) when set, else the file
 * `DATA_DIR/auth-jwt-keys.json` (mode 600), generated on first use like `auth-secret`.
 */
export const JWT_ALG = "ES256";
export const KEY_FILE = "auth-jwt-keys.json";
/** How many keys a rotation keeps: the new one and the one before it. */
const KEPT_KEYS = 2;

export interface SigningKeys {
  /** Signs new tokens. */
  current: { kid: string; key: CryptoKey };
  /** Public keys by `kid`, for verification and the JWKS. */
  verify: Map<string, CryptoKey>;
  jwks: { keys: JWK[] };
}

interface KeyFile {
  keys: JWK[];
}

export async function newPrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: JWT_ALG, use: "sig" };
}

function parseKeyFile(text: string, source: string): KeyFile {
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
  for (const key of keys as JWK[]) {
    if (key.kty !== "EC" || key.crv !== "P-256" || typeof key.d !== "string") {
      throw new Error(`${source}: every key must be a private P-256 (ES256) JWK`);
    }
  }
  return { keys: keys as JWK[] };
}

function keyFilePath(env: Pick<Env, "DATA_DIR">): string {
  return path.join(env.DATA_DIR, KEY_FILE);
}

function writeKeyFile(file: string, content: KeyFile): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

async function buildKeys(file: KeyFile): Promise<SigningKeys> {
  const verify = new Map<string, CryptoKey>();
  const published: JWK[] = [];
  let current: SigningKeys["current"] | undefined;
  for (const jwk of file.keys) {
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

let cached: { source: string; stamp: number; keys: Promise<SigningKeys> } | undefined;

/**
 * The signing keys. The file is re-read when it changes, so `npm run auth:rotate-key` takes
 * effect without a restart.
 */
export async function getSigningKeys(
  env: Pick<Env, "DATA_DIR" | "AUTH_JWT_KEYS">,
): Promise<SigningKeys> {
  if (env.AUTH_JWT_KEYS) {
    if (cached?.source !== "env") {
      cached = {
        source: "env",
        stamp: 0,
        keys: buildKeys(parseKeyFile(env.AUTH_JWT_KEYS, "AUTH_JWT_KEYS")),
      };
    }
    return cached.keys;
  }
  const file = keyFilePath(env);
  if (!existsSync(file)) writeKeyFile(file, { keys: [await newPrivateJwk()] });
  const stamp = statSync(file).mtimeMs;
  if (cached?.source !== file || cached.stamp !== stamp) {
    cached = {
      source: file,
      stamp,
      keys: buildKeys(parseKeyFile(readFileSync(file, "utf8"), file)),
    };
  }
  return cached.keys;
}

/**
 * Rotates the key file: a new key signs from now on, the previous one stays published (tokens
 * it signed live at most an hour), older ones are dropped. Returns the new key's `kid`.
 */
export async function rotateSigningKey(env: Pick<Env, "DATA_DIR">): Promise<string> {
  const file = keyFilePath(env);
  const existing = existsSync(file) ? parseKeyFile(readFileSync(file, "utf8"), file).keys : [];
  const fresh = await newPrivateJwk();
  writeKeyFile(file, { keys: [fresh, ...existing].slice(0, KEPT_KEYS) });
  cached = undefined;
  return fresh.kid ?? "";
}

/** Forgets the cached keys (tests switch DATA_DIR). */
export function resetSigningKeys(): void {
  cached = undefined;
}
