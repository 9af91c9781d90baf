import { data, redirect } from "react-router";
import { z } from "zod";
import { bearerRefused, getViewer } from "~/features/auth/guards.server";
import { followUser, unfollowUser } from "~/features/follows/follows.server";
import { cancelFollowRequest } from "~/features/follows/requests.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { hasBearer } from "~/lib/bearer";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/follow";

const schema = z.object({
  userId: z.string().min(1).max(200),
  intent: z.enum(["follow", "unfollow", "cancel"]),
  name: z.string().max(100).optional(),
});

export function loader() {
  throw data("Use POST to follow or unfollow someone", { status: 405 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer && hasBearer(request.headers)) throw bearerRefused();
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/feed")));
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say whom to follow or unfollow", { status: 400 });
  const { userId, intent, name } = parsed.data;
  return respond({
    request,
    form,
    fallback: "/feed",
    failureTitle:
      intent === "follow"
        ? "Could not follow"
        : intent === "cancel"
          ? "Could not cancel the request"
          : "Could not unfollow",
    success: (state) => ({
      type: "success",
      title:
        intent === "cancel"
          ? `Cancelled your request to follow ${name ?? "them"}`
          : intent === "unfollow"
            ? `You unfollowed ${name ?? "them"}`
            : state.requested
              ? `Asked to follow ${name ?? "them"}`
              : `You follow ${name ?? "them"} now`,
    }),
    run: () =>
      intent === "follow"
        ? followUser({ viewerId: viewer.id, targetId: userId })
        : intent === "cancel"
          ? cancelFollowRequest({ viewerId: viewer.id, targetId: userId })
          : unfollowUser({ viewerId: viewer.id, targetId: userId }),
  });
}
