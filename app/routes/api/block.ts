import { data, redirect } from "react-router";
import { z } from "zod";
import { getViewer } from "~/features/auth/guards.server";
import { blockUser, unblockUser } from "~/features/blocks/blocks.server";
import { respond, returnPath } from "~/lib/action-response.server";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/block";

const schema = z.object({
  userId: z.string().min(1).max(200),
  intent: z.enum(["block", "unblock"]),
  name: z.string().max(100).optional(),
});

export function loader() {
  throw data("Use POST to block or unblock someone", { status: 405 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/feed")));
  const parsed = schema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw data("Say whom to block or unblock", { status: 400 });
  const { userId, intent, name } = parsed.data;
  const who = name ?? "them";
  return respond({
    request,
    form,
    fallback: "/feed",
    failureTitle: intent === "block" ? "Could not block" : "Could not unblock",
    success: () => ({
      type: "success",
      title: intent === "block" ? `You blocked ${who}` : `You unblocked ${who}`,
      description:
        intent === "block"
          ? "Neither of you sees the other's posts, and they can't follow you or react to your posts."
          : "You can follow each other again.",
    }),
    run: async () => {
      if (intent === "block") await blockUser({ viewerId: viewer.id, targetId: userId });
      else await unblockUser({ viewerId: viewer.id, targetId: userId });
      return { blocked: intent === "block" };
    },
  });
}
