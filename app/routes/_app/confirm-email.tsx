import { data, Link } from "react-router";
import { EmptyState } from "~/components/ui/empty-state";
import { confirmEmail } from "~/features/auth/accounts.server";
import { requireUser } from "~/features/auth/guards.server";
import { refuse } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/confirm-email";

export const meta: Route.MetaFunction = () => [{ title: "Confirm your e-mail · Soundtrail" }];

/** Confirms an address for someone already signed in (a saved guest account, a new e-mail). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const result = await confirmEmail({ token, headers: request.headers });
  if (result.ok) {
    return redirectWithToast(
      "/settings",
      {
        type: "success",
        title: "E-mail confirmed",
        description: "You can sign in with it from now on.",
      },
      { headers: result.headers },
    );
  }
  return refuse(result, { problem: result.message ?? "This link is not valid." });
}

export default function ConfirmEmail({ loaderData }: Route.ComponentProps) {
  return (
    <EmptyState
      icon="mail-x"
      title="We could not confirm this e-mail"
      action={
        <Link to="/settings" className="font-medium text-primary underline">
          Back to settings
        </Link>
      }
    >
      {loaderData.problem}
    </EmptyState>
  );
}
