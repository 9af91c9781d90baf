import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { type Env, getEnv } from "~/lib/env.server";

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/**
 * One of the scrypt settings the OWASP Password Storage Cheat Sheet lists as equally strong
 * (N=2^17, r=8, p=1 … N=2^14, r=8, p=5 … N=2^13, r=8, p=10): less memory per hash (16 MiB
 * instead of 128 MiB), made up by more passes (N·r·p is 5/8 of the first row's). On a shared 2-core machine a hash took 3.1–3.6 s at N=2^17 and 0.7–1.0 s here, the
 * difference being memory traffic rather than arithmetic (bench/HISTORY.md, issue 38). Hashes
 * made with older parameters keep verifying with those (they are recorded in the hash).
 */
export const SCRYPT_PARAMS = { logN: 14, r: 8, p: 5 } as const;
const KEY_LENGTH = 64;

function maxmem(logN: number, r: number, p: number) {
  return 128 * 2 ** logN * r * p + 16 * 1024 * 1024;
}

/**
 * The cost new hashes are made with: production's (`SCRYPT_PARAMS`) everywhere but the unit
 * tests, which may ask for a cheaper one (`TEST_PASSWORD_HASH_LOG_N` with NODE_ENV=test).
 */
export function hashParams(
  env: Pick<Env, "NODE_ENV" | "TEST_PASSWORD_HASH_LOG_N">,
): typeof SCRYPT_PARAMS | { logN: number; r: 8; p: 1 } {
  const cheap = env.NODE_ENV === "test" ? env.TEST_PASSWORD_HASH_LOG_N : undefined;
  return cheap === undefined ? SCRYPT_PARAMS : { logN: cheap, r: 8, p: 1 };
}

/** Hashes a password as `scrypt$logN$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const { logN, r, p } = hashParams(getEnv());
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, {
    N: 2 ** logN,
    r,
    p,
    maxmem: maxmem(logN, r, p),
  });
  return ["scrypt", logN, r, p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Verifies a password against a hash made by `hashPassword` (any parameters it recorded). */
export async function verifyPassword({ hash, password }: { hash: string; password: string }) {
  const [scheme, logNs, rs, ps, saltB64, keyB64] = hash.split("$");
  if (scheme !== "scrypt" || !saltB64 || !keyB64) return false;
  const logN = Number(logNs);
  const r = Number(rs);
  const p = Number(ps);
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const expected = Buffer.from(keyB64, "base64url");
  const actual = await scrypt(
    password.normalize("NFKC"),
    Buffer.from(saltB64, "base64url"),
    expected.length,
    {
      N: 2 ** logN,
      r,
      p,
      maxmem: maxmem(logN, r, p),
    },
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
