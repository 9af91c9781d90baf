import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comments, posts } from "~/db/schema";
import routes from "~/routes";
import {
  insertAccounts,
  type LiveAccount,
  type LiveServer,
  signIn,
  startLiveServer,
} from "../tests/support/live-server";

/*
 * Fuzzing every action in app/routes.ts over HTTP against the production server: arbitrary
 * field names and values (the route's own field names and intents mixed with random ones),
 * missing fields, oversized and malformed values (lone surrogates, invalid UTF-8, broken
 * percent-escapes), every encoding (url-encoded, multipart, JSON, text/plain, none), signed
 * in and signed out. A 4xx, a redirect or a re-rendered form are all fine; a 5xx never is,
 * and the server is still healthy at the end. The action list comes from the route table, so
 * a new action is fuzzed without anyone listing it.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNS_PER_ACTION = Number(process.env.FUZZ_RUNS ?? 12);

interface RouteEntry {
  path?: string;
  index?: boolean;
  file: string;
  children?: RouteEntry[];
}

function flatten(entries: RouteEntry[], prefix = ""): { file: string; pattern: string }[] {
  return entries.flatMap((entry) => {
    const here = entry.path ? `${prefix}/${entry.path}` : prefix;
    const own = entry.path || entry.index ? [{ file: entry.file, pattern: here || "/" }] : [];
    return [...own, ...flatten(entry.children ?? [], here)];
  });
}

const POST_ID = "33330000-0000-4000-8000-000000000001";
const COMMENT_ID = "44440000-0000-4000-8000-000000000001";
const MEMBER: LiveAccount = {
  id: "fuzz-member",
  email: "member@fuzz.test",
  username: "fuzz_member",
  displayName: "Fuzz Member",
};
const ADMIN: LiveAccount = {
  id: "fuzz-admin",
  email: "admin@fuzz.test",
  username: "fuzz_admin",
  displayName: "Fuzz Admin",
  isAdmin: true,
};

/** One member per action route: sign-ins are limited per account (20 in 15 minutes). */
const FUZZERS: LiveAccount[] = Array.from({ length: 60 }, (_, i) => ({
  id: `fuzzer-${i}`,
  email: `fuzzer${i}@fuzz.test`,
  username: `fuzzer_${i}`,
  displayName: `Fuzzer ${i}`,
}));

function sample(pattern: string): string {
  return pattern
    .replace(":id", POST_ID)
    .replace(":username", MEMBER.username)
    .replace(":list", "followers")
    .replace(":provider", "github")
    .replace("*", "no/such/page");
}

interface ActionRoute {
  file: string;
  url: string;
  /** Field names and intent values found in the route module. */
  names: string[];
  intents: string[];
}

const actionRoutes: ActionRoute[] = flatten(routes as RouteEntry[]).flatMap(({ file, pattern }) => {
  const source = readFileSync(path.join(ROOT, "app", file), "utf8");
  if (!/export (async )?function action|export const action/.test(source)) return [];
  const names = new Set<string>(["intent", "redirectTo"]);
  for (const m of source.matchAll(/name="([\w.[\]-]+)"|\.get\("([\w.[\]-]+)"\)/g)) {
    names.add((m[1] ?? m[2]) as string);
  }
  const intents = new Set<string>();
  for (const m of source.matchAll(/intent === "([\w-]+)"|case "([\w-]+)"/g)) {
    intents.add((m[1] ?? m[2]) as string);
  }
  return [{ file, url: sample(pattern), names: [...names], intents: [...intents] }];
});

/** Percent-encodes the UTF-8 bytes of `value` (lone surrogates become U+FFFD, as a browser sends). */
function encode(value: string): string {
  return [...Buffer.from(value, "utf8")]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

/** Raw url-encoded fragments no well-behaved client sends. */
const RAW_HOSTILE = [
  "%ED%A0%80", // a lone surrogate in CESU-8
  "%FF%FE",
  "%E0%A4%A",
  "%",
  "%%",
  "%00",
  "&&&",
  "==",
  "+%2B+",
];

const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ maxLength: 300 }),
  fc.constantFrom(
    "",
    " ",
    "null",
    "undefined",
    "NaN",
    "-1",
    "1e309",
    "0x10",
    "true",
    "[]",
    "{}",
    '{"a":1}',
    "\uD800",
    "\uDFFF\uD800",
    "\u0000",
    "../../etc/passwd",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "00000000-0000-4000-8000-000000000000",
    POST_ID,
    COMMENT_ID,
    MEMBER.id,
  ),
  fc.integer({ min: 1, max: 60_000 }).map((n) => "x".repeat(n)),
);

interface Body {
  contentType: string | null;
  body: string | Blob | FormData;
  label: string;
}

function bodyArbitrary(route: ActionRoute): fc.Arbitrary<Body> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...route.names) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  );
  const value = route.intents.length
    ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...route.intents) }, hostileString)
    : hostileString;
  const fields = fc.array(fc.tuple(name, value), { maxLength: 10 });
  const urlencoded = fc
    .tuple(fields, fc.array(fc.constantFrom(...RAW_HOSTILE), { maxLength: 2 }))
    .map(([pairs, raw]) => ({
      contentType: "application/x-www-form-urlencoded",
      body: [...pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`), ...raw].join("&"),
      label: "url-encoded",
    }));
  const multipart = fields.map((pairs) => {
    const form = new FormData();
    for (const [k, v] of pairs) form.append(k, v);
    return { contentType: null, body: form, label: "multipart" };
  });
  const json = fc
    .oneof(
      fields.map((pairs) => Object.fromEntries(pairs)),
      fc.jsonValue({ maxDepth: 3 }),
    )
    .map((v) => ({ contentType: "application/json", body: JSON.stringify(v), label: "json" }));
  const odd = fc.oneof(
    fields.map((pairs) => ({
      contentType: "text/plain",
      body: pairs.map(([k, v]) => `${k}=${v}`).join("\n"),
      label: "text/plain",
    })),
    fields.map((pairs) => ({
      contentType: null,
      body: new Blob([pairs.map(([k, v]) => `${k}=${v}`).join("&")]),
      label: "no content type",
    })),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => ({
      contentType: "multipart/form-data; boundary=fuzz",
      body: new Blob([bytes]),
      label: "broken multipart",
    })),
  );
  return fc.oneof(
    { weight: 5, arbitrary: urlencoded },
    { weight: 2, arbitrary: multipart },
    { weight: 2, arbitrary: json },
    { weight: 1, arbitrary: odd },
  );
}

describe("fuzzing every action (never a 5xx)", () => {
  let server: LiveServer;
  let ip = 1;
  const nextIp = () => `203.0.113.${(ip++ % 250) + 1}`;

  beforeAll(async () => {
    server = await startLiveServer({
      seed: async (db) => {
        await insertAccounts(db, [MEMBER, ADMIN, ...FUZZERS]);
        await db.insert(posts).values({
          id: POST_ID,
          authorId: MEMBER.id,
          kind: "track",
          title: "Fuzzed track",
          artist: "Fuzz Band",
        });
        await db
          .insert(comments)
          .values({ commentId: COMMENT_ID, postId: POST_ID, userId: MEMBER.id, content: "hi" });
      },
    });
  }, 420_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("finds the actions in the route table", () => {
    expect(actionRoutes.length).toBeGreaterThan(20);
    expect(actionRoutes.map((r) => r.url)).toEqual(
      expect.arrayContaining(["/feed", "/auth/login", "/api/like", "/admin/users"]),
    );
  });

  it("answers arbitrary form input on every action with something other than a 5xx", async () => {
    const failures: string[] = [];
    let requests = 0;
    // A session per route, all signed in before any fuzzing (which trips the sign-in limits):
    // a fuzzed sign-out or session revocation must not hide the signed-in path of the next
    // route. Admin routes are fuzzed as an admin.
    const sessions: string[] = [];
    for (const [i, route] of actionRoutes.entries()) {
      const who =
        route.url.startsWith("/admin") || route.url.includes("send-email")
          ? ADMIN
          : (FUZZERS[i] ?? MEMBER);
      sessions.push(await signIn(server.base, who.email, `198.18.0.${i + 1}`));
    }
    for (const [i, route] of actionRoutes.entries()) {
      const cookie = sessions[i] ?? "";
      await fc.assert(
        fc.asyncProperty(bodyArbitrary(route), fc.boolean(), async (input, signedIn) => {
          const headers: Record<string, string> = {
            Origin: server.base,
            "X-Forwarded-For": nextIp(),
          };
          if (input.contentType) headers["Content-Type"] = input.contentType;
          if (signedIn) headers.Cookie = cookie;
          const response = await fetch(`${server.base}${route.url}`, {
            method: "POST",
            redirect: "manual",
            headers,
            body: input.body,
          });
          await response.arrayBuffer().catch(() => undefined);
          requests++;
          if (response.status >= 500) {
            const shown = typeof input.body === "string" ? input.body.slice(0, 300) : input.label;
            failures.push(
              `POST ${route.url} (${input.label}, ${signedIn ? "signed in" : "signed out"}): ${response.status} — ${JSON.stringify(shown)}`,
            );
          }
        }),
        { numRuns: RUNS_PER_ACTION },
      );
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(actionRoutes.length * RUNS_PER_ACTION);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(200);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  }, 180_000);
});
