import { data, redirect } from "react-router";
import { z } from "zod";
import { bearerRefused, getViewer } from "~/features/auth/guards.server";
import { likePost, unlikePost } from "~/features/likes/likes.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { hasBearer } from "~/lib/bearer";
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
  // The like button names its post in the action's URL (`/api/like?postId=…`: one attribute
  // instead of a hidden input on every card); a form field still wins, as API clients send it.
  const fromUrl = new URL(request.url).searchParams.get("postId");
  if (!form.has("postId") && fromUrl !== null) form.set("postId", fromUrl);
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say which post to like or unlike", { status: 400 });
  const { postId, intent } = parsed.data;
  // The like button sends no return path: a plain form goes back to the page it came from
  // (the Referer), at this post.
  if (!form.has("redirectTo")) {
    form.set("redirectTo", `${returnPath(request, form, `/post/${postId}`)}#post-${postId}`);
  }
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
