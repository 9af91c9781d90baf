import { createServer, type Server } from "node:http";
import { like, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb, rowsOf } from "~/db/client.server";
import { follows, jobs, remoteActors, user } from "~/db/schema";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import { isFederationRequest } from "./handler.server";
import { lookupRemotePerson } from "./lookup.server";

// An instance that turned federation off: nothing is answered for other servers, nothing is
// fetched from them, nothing is queued for them — even for a person who has a remote follower
// from the time it was on.
vi.hoisted(() => {
  process.env.BASE_URL = "http://127.0.0.54:4154";
  process.env.FEDERATION = "off";
  process.env.FEDERATION_ALLOW_LOOPBACK = "true";
});
const REMOTE = { host: "127.0.0.55", port: 4155 };

withTestDatabase();

/** A would-be remote server: it counts every request it gets (there must be none). */
let remote: Server;
let requests = 0;

beforeAll(async () => {
  remote = createServer((_req, res) => {
    requests++;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => remote.listen(REMOTE.port, REMOTE.host, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => remote.close(resolve));
});

describe("FEDERATION=off", () => {
  it("answers nothing for other servers: WebFinger, NodeInfo, inboxes and actor JSON go to the app", () => {
    const here = "http://127.0.0.54:4154";
    const asked = [
      new Request(`${here}/.well-known/webfinger?resource=acct:ana@127.0.0.54:4154`),
      new Request(`${here}/.well-known/nodeinfo`),
      new Request(`${here}/nodeinfo/2.1`),
      new Request(`${here}/inbox`, { method: "POST", body: "{}" }),
      new Request(`${here}/u/ana/inbox`, { method: "POST", body: "{}" }),
      new Request(`${here}/u/ana`, { headers: { Accept: "application/activity+json" } }),
    ];
    expect(asked.map((request) => isFederationRequest(request))).toEqual(asked.map(() => false));
  });

  it("looks nobody up elsewhere: no request leaves the server", async () => {
    expect(await lookupRemotePerson(`@ana@${REMOTE.host}:${REMOTE.port}`)).toBeNull();
    expect(await lookupRemotePerson(`http://${REMOTE.host}:${REMOTE.port}/u/ana`)).toBeNull();
    expect(requests).toBe(0);
  });

  it("queues nothing for a remote follower when a post goes to everyone", async () => {
    const author = await createTestUser();
    const followerId = `remote-${REMOTE.port}-ana`;
    await getDb()
      .insert(user)
      .values({ id: followerId, name: "ana", email: `${followerId}@remote.invalid` });
    await getDb()
      .insert(remoteActors)
      .values({
        userId: followerId,
        actorUri: `http://${REMOTE.host}:${REMOTE.port}/u/ana`,
        host: `${REMOTE.host}:${REMOTE.port}`,
        inbox: `http://${REMOTE.host}:${REMOTE.port}/u/ana/inbox`,
      });
    await getDb().insert(follows).values({ followerId, followeeId: author.id });
    const postId = await createTestPost(author.id, { audience: "everyone" });
    expect(postId).toMatch(/^[0-9a-f-]{36}$/);
    const queued = await getDb()
      .select({ kind: jobs.kind })
      .from(jobs)
      .where(like(jobs.kind, "federation.%"));
    expect(queued).toEqual([]);
    // The post itself is there, for local readers.
    const [row] = rowsOf<{ n: number }>(
      await getDb().execute(sql`select count(*)::int as n from posts where id = ${postId}::uuid`),
    );
    expect(row?.n).toBe(1);
    expect(requests).toBe(0);
  });
});
