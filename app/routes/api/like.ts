import { data, redirect } from "react-router";
import { z } from "zod";
import { bearerRefused, getViewer } from "~/features/auth/guards.server";
import { hasBearer } from "~/features/auth-api/bearer.server";
import { likePost, unlikePost } from "~/features/likes/likes.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/like";

const schema = z.object({ postId: z.string().max(100), intent: z.enum(["like", "unlike"]) });

export function loader() {
  throw data("Use POST to like or unlike a post", { status: 405 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer && hasBearer(request.headers)) throw bearerRefused();
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/feed")));
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say which post to like or unlike", { status: 400 });
  const { postId, intent } = parsed.data;
  return respond({
    request,
    form,
    fallback: `/post/${postId}`,
    failureTitle: intent === "like" ? "Could not like this post" : "Could not remove your like",
    run: () =>
      intent === "like"
        ? likePost({ viewerId: viewer.id, postId })
        : unlikePost({ viewerId: viewer.id, postId }),
  });
}
