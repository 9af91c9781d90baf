import { data, redirect } from "react-router";
import { z } from "zod";
import { followUser, unfollowUser } from "~/features/follows/follows.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { getViewer } from "~/lib/guards.server";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/follow";

const schema = z.object({
  userId: z.string().min(1).max(200),
  intent: z.enum(["follow", "unfollow"]),
  name: z.string().max(100).optional(),
});

export function loader() {
  throw data("Use POST to follow or unfollow someone", { status: 405 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/feed")));
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say whom to follow or unfollow", { status: 400 });
  const { userId, intent, name } = parsed.data;
  return respond({
    request,
    form,
    fallback: "/feed",
    failureTitle: intent === "follow" ? "Could not follow" : "Could not unfollow",
    success: () => ({
      type: "success",
      title:
        intent === "follow"
          ? `You follow ${name ?? "them"} now`
          : `You unfollowed ${name ?? "them"}`,
    }),
    run: () =>
      intent === "follow"
        ? followUser({ viewerId: viewer.id, targetId: userId })
        : unfollowUser({ viewerId: viewer.id, targetId: userId }),
  });
}
