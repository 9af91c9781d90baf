import { Form, Link } from "react-router";
import { Button } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { checkFirstAdminToken, claimFirstAdmin } from "~/features/auth/first-admin.server";
import { requireUser } from "~/features/auth/guards.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/setup";

export const meta: Route.MetaFunction = () => [{ title: "Set up Soundtrail" }];

const MESSAGES = {
  invalid:
    "This setup link is not the current one. Restart the server to print a new one, or use npm run admin:grant.",
  taken: "This Soundtrail already has an administrator; ask them for the role.",
  guest: "Save your guest account first (with an e-mail and password), then open the link again.",
} as const;

/**
 * The one-time setup link the server prints on its first starts (until someone is admin):
 * whoever opens it signed in, with the current token, may make their account the administrator.
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const check = await checkFirstAdminToken(params.token);
  return {
    problem: check === "valid" ? (viewer.isGuest ? MESSAGES.guest : null) : MESSAGES[check],
    displayName: viewer.displayName,
  };
}

export async function action({ context, request, params }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const result = await claimFirstAdmin({
    userId: viewer.id,
    isGuest: viewer.isGuest,
    token: params.token,
  });
  if (result === "granted") {
    return redirectWithToast("/admin", {
      type: "success",
      title: "You are the administrator",
      description: "The setup link no longer works. More admins: Admin › Users.",
    });
  }
  return { problem: result === "valid" ? MESSAGES.invalid : MESSAGES[result] };
}

export default function Setup({ loaderData, actionData }: Route.ComponentProps) {
  const problem = actionData?.problem ?? loaderData.problem;
  if (problem) {
    return (
      <EmptyState
        icon="shield"
        title="This setup link cannot be used"
        action={
          <Link to="/feed" className="font-medium text-primary underline">
            Go to your feed
          </Link>
        }
      >
        {problem}
      </EmptyState>
    );
  }
  return (
    <>
      <PageHeader title="Set up Soundtrail">
        Nobody administers this Soundtrail yet. The administrator manages accounts, reports and
        announcements.
      </PageHeader>
      <Form method="post" className="flex flex-col items-start gap-3">
        <p>
          Make <strong>{loaderData.displayName}</strong> (your account) the administrator? The link
          works once.
        </p>
        <Button type="submit">Become the administrator</Button>
      </Form>
    </>
  );
}
