import { data } from "react-router";
import { getViewer } from "~/features/auth/guards.server";
import { latestNotificationSeq } from "~/features/notifications/inbox.server";
import { getLiveHub, type LiveStream } from "~/features/realtime/hub.server";
import { sessionIdContext } from "~/lib/context.server";
import { messageFailure } from "~/lib/forms";
import type { Route } from "./+types/events";

/** A notification `seq` from the `Last-Event-ID` header or `?after=`, when it is one. */
function parseSeq(raw: string | null): number | null {
  if (!raw || !/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/**
 * `GET /api/events`: the signed-in person's live events as Server-Sent Events — `ready`,
 * `notification` (id = its seq), `unread`, `post`, and a `heartbeat` every 30 s. A browser
 * that reconnects with `Last-Event-ID` (or `?after=`) first gets what it missed. Each open
 * stream is a few objects in this process's hub: no thread and no database connection of its own.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  const sessionId = context.get(sessionIdContext);
  if (!viewer || !sessionId) {
    return data(messageFailure("Sign in to get live updates."), { status: 401 });
  }
  const hub = getLiveHub();
  if (!hub)
    return data(messageFailure("Live updates are not available right now."), { status: 503 });
  const url = new URL(request.url);
  const lastSeq =
    parseSeq(request.headers.get("Last-Event-ID")) ??
    parseSeq(url.searchParams.get("after")) ??
    (await latestNotificationSeq(viewer.id));

  const encoder = new TextEncoder();
  let stream: LiveStream | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const live: LiveStream = {
        userId: viewer.id,
        sessionId,
        lastSeq,
        write(frame) {
          if (!open) return;
          try {
            controller.enqueue(encoder.encode(frame));
          } catch {
            close();
          }
        },
        end: () => close(),
      };
      const close = () => {
        if (!open) return;
        open = false;
        hub.remove(live);
        try {
          controller.close();
        } catch {
          // Already closed by the browser going away.
        }
      };
      stream = live;
      request.signal.addEventListener("abort", close, { once: true });
      hub.add(live);
    },
    cancel() {
      if (stream) hub.remove(stream);
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
