import { data, redirect } from "react-router";
import { z } from "zod";
import { bearerRefused, getViewer } from "~/features/auth/guards.server";
import { deleteOwnListen, loveListen } from "~/features/journey/listenbrainz/recent.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { hasBearer } from "~/lib/bearer";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/listens";

const schema = z.object({
  intent: z.enum(["love", "unlove", "delete"]),
  ownerId: z.string().min(1).max(100),
  ts: z.coerce.number().int().min(0).max(4_102_444_800),
  msid: z.uuid(),
});

export function loader() {
  throw data("Use POST to love or delete a listen", { status: 405 });
}

/** The heart and the delete button of a recent listen (profile pages). */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer && hasBearer(request.headers)) throw bearerRefused();
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/profile")));
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say which listen to love or delete", { status: 400 });
  const { intent, ownerId, ts, msid } = parsed.data;
  return respond({
    request,
    form,
    fallback: "/profile",
    failureTitle:
      intent === "delete" ? "Could not delete this listen" : "Could not update your love",
    run: (): Promise<{ isLoved?: boolean; deleted?: number }> =>
      intent === "delete"
        ? deleteOwnListen({ viewerId: viewer.id, ts, msid })
        : loveListen({ viewerId: viewer.id, ownerId, ts, msid, isLoved: intent === "love" }),
    success: () => (intent === "delete" ? { type: "success", title: "Listen deleted" } : null),
  });
}
