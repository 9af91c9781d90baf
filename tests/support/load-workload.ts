// Simulated people for the load suite (server/load.test.ts) and its longer bench step
// (bench/load.ts): each signs in and then browses the feed, posts, likes, comments, follows and
// reads notifications against a real server, counting answers by status class.
import type { Database } from "~/db/client.server";
import { posts } from "~/db/schema";
import { insertAccounts, type LiveAccount, signIn } from "./live-server";

export const LOAD_PEOPLE = 50;

export function loadPeople(count = LOAD_PEOPLE): LiveAccount[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `load-${i}`,
    email: `person${i}@load.test`,
    username: `load_${i}`,
    displayName: `Load Person ${i}`,
  }));
}

/** Fixtures: the people and a few posts each, so feeds and post pages have content. */
export async function seedLoad(db: Database, people: LiveAccount[]): Promise<void> {
  await insertAccounts(db, people);
  await db.insert(posts).values(
    people.flatMap((person, i) =>
      [0, 1].map((k) => ({
        authorId: person.id,
        kind: "track" as const,
        title: `Seed track ${i}.${k}`,
        artist: `Band ${i % 7}`,
        note: `Listening to this on repeat #load${i % 5}`,
      })),
    ),
  );
}

export interface LoadCounts {
  requests: number;
  byClass: Record<"2xx" | "3xx" | "4xx" | "5xx" | "network", number>;
  /** The first few 5xx and network failures, for the failure message. */
  failures: string[];
}

export function emptyCounts(): LoadCounts {
  return {
    requests: 0,
    byClass: { "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, network: 0 },
    failures: [],
  };
}

interface Person {
  account: LiveAccount;
  cookie: string;
  ip: string;
  postIds: string[];
}

/** Signs everyone in, `parallel` at a time (each from an address of their own). */
export async function signInPeople(
  base: string,
  people: LiveAccount[],
  parallel = 4,
): Promise<Person[]> {
  const out: Person[] = [];
  for (let i = 0; i < people.length; i += parallel) {
    const batch = people.slice(i, i + parallel);
    const signed = await Promise.all(
      batch.map(async (account, k) => {
        const ip = `100.64.${Math.floor((i + k) / 200)}.${((i + k) % 200) + 1}`;
        return { account, cookie: await signIn(base, account.email, ip), ip, postIds: [] };
      }),
    );
    out.push(...signed);
  }
  return out;
}

/**
 * Runs `rounds` rounds of the mixed workload for every person at once (one request at a time
 * per person, as a browser tab would): feed, post, like, comment, follow, notifications, and
 * unless `light`, a post page, a profile and the feed's `.data`.
 */
export async function runWorkload(
  base: string,
  people: Person[],
  rounds: number,
  counts: LoadCounts,
  /** Only the six core steps (feed, post, like, comment, follow, notifications): for CI. */
  light = false,
): Promise<void> {
  const request = async (person: Person, path: string, init: RequestInit = {}) => {
    counts.requests++;
    try {
      const response = await fetch(`${base}${path}`, {
        ...init,
        redirect: "manual",
        headers: {
          Cookie: person.cookie,
          Origin: base,
          "X-Forwarded-For": person.ip,
          ...(init.headers as Record<string, string> | undefined),
        },
      });
      const body = await response.text();
      const cls = `${Math.floor(response.status / 100)}xx` as keyof LoadCounts["byClass"];
      counts.byClass[cls] = (counts.byClass[cls] ?? 0) + 1;
      if (response.status >= 500 && counts.failures.length < 10) {
        counts.failures.push(
          `${init.method ?? "GET"} ${path}: ${response.status} ${body.slice(0, 200)}`,
        );
      }
      return body;
    } catch (error) {
      counts.byClass.network++;
      if (counts.failures.length < 10) {
        counts.failures.push(`${init.method ?? "GET"} ${path}: ${(error as Error).message}`);
      }
      return "";
    }
  };
  const form = (fields: Record<string, string>): RequestInit => ({
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  const postIdsIn = (html: string) =>
    [...html.matchAll(/<article id="post-([0-9a-f-]{36})"/g)].map((m) => m[1] as string);

  await Promise.all(
    people.map(async (person, index) => {
      for (let round = 0; round < rounds; round++) {
        const feed = await request(person, round % 2 ? "/feed?tab=everyone" : "/feed");
        const seen = postIdsIn(feed);
        const target = seen[(index + round) % Math.max(1, seen.length)];
        const composer = new FormData();
        composer.set("kind", "track");
        composer.set("title", `Track ${index}.${round}`);
        composer.set("artist", `Band ${index % 7}`);
        composer.set("note", `round ${round} #load${index % 5}`);
        composer.set("audience", round % 3 ? "everyone" : "followers");
        await request(person, "/feed", { method: "POST", body: composer });
        if (target) {
          await request(person, "/api/like", form({ intent: "like", postId: target }));
          await request(
            person,
            `/post/${target}`,
            form({ intent: "add-comment", content: `Nice one (${index}.${round})` }),
          );
          if (!light) await request(person, `/post/${target}`);
        }
        const other = people[(index + round + 1) % people.length];
        if (other && other !== person) {
          await request(
            person,
            "/api/follow",
            form({ intent: round % 4 === 3 ? "unfollow" : "follow", userId: other.account.id }),
          );
          if (!light) await request(person, `/u/${other.account.username}`);
        }
        await request(person, "/notifications");
        if (!light) await request(person, "/feed.data");
      }
    }),
  );
}
