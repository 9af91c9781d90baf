import { data, redirect } from "react-router";
import { z } from "zod";
import { AppError } from "~/core/errors";
import { getViewer } from "~/features/auth/guards.server";
import { reportComment, reportPost } from "~/features/reports/reports.server";
import { reportInputSchema } from "~/features/reports/schemas";
import { respond, returnPath } from "~/lib/action-response.server";
import { loginUrlFor } from "~/lib/redirects";
import type { Route } from "./+types/report";

const targetSchema = z.union([
  z.object({ postId: z.string().max(100), commentId: z.undefined() }),
  z.object({ commentId: z.string().max(100), postId: z.undefined() }),
]);

export function loader() {
  throw data("Use POST to report a post or a comment", { status: 405 });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const viewer = getViewer(context);
  if (!viewer) throw redirect(loginUrlFor(returnPath(request, form, "/feed")));
  const fields = Object.fromEntries(
    [...form.entries()].filter(([, v]) => typeof v === "string" && v !== ""),
  );
  const target = targetSchema.safeParse({ postId: fields.postId, commentId: fields.commentId });
  const input = reportInputSchema.safeParse(fields);
  if (!target.success) throw data("Say which post or comment to report", { status: 400 });
  return respond({
    request,
    form,
    fallback: "/feed",
    failureTitle: "Could not send the report",
    success: () => ({
      type: "success",
      title: "Thanks for reporting",
      description: "The moderators of this Soundtrail will review it.",
    }),
    run: async () => {
      if (!input.success) {
        throw new AppError("invalid", input.error.issues[0]?.message ?? "Choose a reason.");
      }
      const { reason, details } = input.data;
      if (target.data.postId) {
        await reportPost({ viewerId: viewer.id, postId: target.data.postId, reason, details });
      } else if (target.data.commentId) {
        await reportComment({
          viewerId: viewer.id,
          commentId: target.data.commentId,
          reason,
          details,
        });
      }
      return { reported: true };
    },
  });
}
