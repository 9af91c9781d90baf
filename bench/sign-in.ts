import { randomBytes, scrypt } from "node:crypto";
import { SEED_PEOPLE } from "~/db/seed-data";
import { SCRYPT_PARAMS } from "~/features/auth/password.server";
import { signIn } from "./html-size";
import { type BudgetRow, log, ms, percentile, type StepOutcome } from "./lib/report";
import {
  ensureBuild,
  type RunningServer,
  seedDemo,
  serverEnv,
  startServer,
  tempDataDir,
} from "./lib/server";
import { loop, timings } from "./lib/traffic";

/**
 * Issue 38: how long signing in takes — `POST /auth/login` with the demo password, answered
 * with the session cookie — alone and while page views keep the server busy (8 clients
 * loading a signed-in /feed back to back), p50 and p99. And the password hash alone, at the
 * parameters before issue 38 (scrypt N=2^17, r=8, p=1) and now (SCRYPT_PARAMS), in this process.
 */

const PORT = 3406;
const DEMO_PASSWORD = "Soundtrail-demo-2025";
const emails = SEED_PEOPLE.map((p) => `${p.username.replace(/\./g, "-")}@demo.soundtrail.test`);
let address = 0;

async function timeSignIn(base: string, email: string): Promise<number> {
  address++;
  const started = performance.now();
  const response = await fetch(`${base}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      Origin: base,
      "Content-Type": "application/x-www-form-urlencoded",
      // Each sign-in from its own address: the per-address limit is not what is measured.
      "X-Forwarded-For": `198.18.${Math.floor(address / 250) % 250}.${(address % 250) + 1}`,
    },
    body: new URLSearchParams({ intent: "password", email, password: DEMO_PASSWORD }),
  });
  await response.arrayBuffer();
  const took = performance.now() - started;
  const isSignedIn = response.headers
    .getSetCookie()
    .some((c) => /^(?:__Secure-)?soundtrail\.session_token=[^;]+/.test(c));
  if (!isSignedIn) throw new Error(`signing in as ${email} failed (HTTP ${response.status})`);
  return took;
}

function hashMs(logN: number, r: number, p: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) =>
    scrypt(
      "Soundtrail-demo-2025",
      randomBytes(16),
      64,
      { N: 2 ** logN, r, p, maxmem: 128 * 2 ** logN * r * p + 16 * 1024 * 1024 },
      (error) => (error ? reject(error) : resolve(performance.now() - started)),
    ),
  );
}

export async function benchSignIn(): Promise<StepOutcome> {
  const runs = Number(process.env.BENCH_SIGN_IN_RUNS ?? 40);
  await ensureBuild();
  const data = tempDataDir("sign-in");
  const env = serverEnv({ port: PORT, dataDir: data.dir, extra: { TRUST_PROXY: "on" } });
  let server: RunningServer | null = null;
  try {
    const hashes = { before: [] as number[], now: [] as number[] };
    for (let i = 0; i < 7; i++) {
      hashes.before.push(await hashMs(17, 8, 1));
      hashes.now.push(await hashMs(SCRYPT_PARAMS.logN, SCRYPT_PARAMS.r, SCRYPT_PARAMS.p));
    }
    log("sign-in: seeding the demo community (npm run seed) …");
    await seedDemo(env);
    server = await startServer(env);
    const base = server.baseUrl;
    // Warm up (first renders, the limiter's rows).
    for (const email of emails.slice(0, 3)) await timeSignIn(base, email);

    const quiet: number[] = [];
    for (let i = 0; i < runs / 2; i++) quiet.push(await timeSignIn(base, emails[i % 30] as string));

    const cookie = await signIn(base);
    let done = false;
    const pages = timings();
    const viewers = Array.from({ length: 8 }, () =>
      loop(
        base,
        () => "/feed",
        { cookie },
        () => done,
        pages,
      ),
    );
    const loaded: number[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        loaded.push(await timeSignIn(base, emails[(i + 7) % emails.length] as string));
      }
    } finally {
      done = true;
      await Promise.all(viewers);
    }
    const line = (samples: number[]) =>
      `p50 ${ms(percentile(samples, 50))}, p99 ${ms(percentile(samples, 99))} (n=${samples.length})`;
    const rows: BudgetRow[] = [
      {
        step: "sign-in",
        metric: "POST /auth/login, quiet server",
        measured: line(quiet),
        budget: "—",
        pass: null,
      },
      {
        step: "sign-in",
        metric: "POST /auth/login, 8 clients loading /feed meanwhile",
        measured: line(loaded),
        budget: "—",
        pass: null,
      },
      {
        step: "sign-in",
        metric: "the /feed views meanwhile",
        measured: line(pages.samples),
        budget: "—",
        pass: null,
      },
      {
        step: "sign-in",
        metric: "scrypt hash alone: N=2^17 r=8 p=1 (before) / now",
        measured: `${ms(percentile(hashes.before, 50))} / ${ms(percentile(hashes.now, 50))} (medians of 7; now N=2^${SCRYPT_PARAMS.logN} r=${SCRYPT_PARAMS.r} p=${SCRYPT_PARAMS.p})`,
        budget: "—",
        pass: null,
      },
    ];
    return {
      step: "sign-in",
      rows,
      notes: [
        "one instance (PGlite, production build), demo community; sign-ins one after another across the 30 demo accounts, each from its own address (TRUST_PROXY), timed until the answer with the session cookie.",
      ],
      seconds: 0,
    };
  } finally {
    await server?.stop();
    data.cleanup();
  }
}
