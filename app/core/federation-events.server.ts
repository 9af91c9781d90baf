import { sql } from "drizzle-orm";
import { type DbOrTx, rowsOf } from "~/db/client.server";
import { follows, remoteActors } from "~/db/schema";
import { getEnv } from "~/lib/env.server";
import { enqueueJob } from "./jobs/index.server";
import type { SocialEvent } from "./social-events";

/** The job kind the federation feature runs for an event (app/features/federation). */
export const FEDERATION_EVENT_KIND = "federation.event";

/** What may go out to other servers: the social events, a post's edit, a profile's change. */
export type FederationEvent =
  | SocialEvent
  | { type: "postUpdated"; postId: string; authorId: string }
  | { type: "profileUpdated"; userId: string };

/** The people of an event that, when remote, make it matter to other servers. */
function peopleOf(event: FederationEvent): string[] {
  switch (event.type) {
    case "postLiked":
    case "postUnliked":
      return [event.authorId, event.likerId];
    case "commentAdded":
      return [event.authorId, event.commenterId, event.replyToAuthorId ?? event.authorId];
    case "userFollowed":
    case "userUnfollowed":
      return [event.followerId, event.followeeId];
    case "userBlocked":
      return [event.blockerId, event.blockedId];
    case "followRequested":
    case "followRequestClosed":
    case "followAccepted":
      return [event.requesterId, event.targetId];
    default:
      return [];
  }
}

/** The author whose remote followers hear of this event, if it is about a post of theirs. */
function authorOf(event: FederationEvent): string | null {
  switch (event.type) {
    case "postCreated":
    case "postDeleted":
    case "postUpdated":
      return event.authorId;
    case "profileUpdated":
      return event.userId;
    default:
      return null;
  }
}

/**
 * Queues the federation of an event, in the transaction of the change (so a rolled-back change
 * sends nothing), when it concerns another server: a remote person takes part, or the author
 * has remote followers. Nothing when FEDERATION=off. The federation feature's job decides what
 * activity, if any, goes out (core cannot import features: this is the seam).
 */
export async function queueFederationEvent(tx: DbOrTx, event: FederationEvent): Promise<void> {
  if (!getEnv().FEDERATION) return;
  const people = peopleOf(event);
  const author = authorOf(event);
  let concerns = false;
  if (people.length > 0) {
    const [row] = rowsOf<{ ok: boolean }>(
      await tx.execute(sql`
        select exists (select 1 from ${remoteActors}
          where user_id in (${sql.join(
            people.map((p) => sql`${p}`),
            sql`, `,
          )})) as ok`),
    );
    concerns = Boolean(row?.ok);
  } else if (author) {
    const [row] = rowsOf<{ ok: boolean }>(
      await tx.execute(sql`
        select exists (select 1 from ${follows} f join ${remoteActors} r on r.user_id = f.follower_id
          where f.followee_id = ${author}) as ok`),
    );
    concerns = Boolean(row?.ok);
  }
  if (!concerns) return;
  await enqueueJob(tx, {
    kind: FEDERATION_EVENT_KIND,
    payload: event as unknown as Record<string, unknown>,
  });
}
