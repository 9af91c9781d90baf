import { showToast } from "~/components/ui/toaster";
import type { MessageFailure } from "~/lib/forms";

/** What admin actions answer: a message to confirm, or the reason it did not happen. */
export type ActionResult = { ok: true; message: string } | MessageFailure;

/**
 * The admin routes' clientAction: runs the server action and shows its outcome as a toast,
 * exactly once per submission.
 *
 * Not an effect in the component that submitted: that component is often gone by the time the
 * answer is rendered. Banning swaps the Ban dialog for an Unban button, deleting removes the
 * row, and React may commit the reloaded page without ever rendering the answer in between, so
 * such a toast was sometimes lost.
 */
export async function announceAdminAction<T extends ActionResult>(
  serverAction: () => Promise<T>,
): Promise<T> {
  const result = await serverAction();
  if (result.ok) showToast({ type: "success", title: result.message });
  else showToast({ type: "error", title: result.message });
  return result;
}
