import { requireUser } from "~/features/auth/guards.server";
import { streamPersonJson } from "~/features/settings/export.server";
import type { Route } from "./+types/settings-data-export";

/**
 * `/settings/data/export`: the signed-in person's own data as one JSON download, streamed as
 * it is read (a page of rows at a time, at the client's pace), so a history of millions of
 * plays never sits in memory.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const day = new Date().toISOString().slice(0, 10);
  const parts = streamPersonJson({ userId: viewer.id });
  const encoder = new TextEncoder();
  // The first part (the profile) is read before answering, so a failure is still a clean error.
  const first = await parts.next();
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (!first.done) controller.enqueue(encoder.encode(first.value));
      },
      async pull(controller) {
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await parts.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="soundtrail-${viewer.username}-${day}.json"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
