import { AuthCard } from "~/components/layout/auth-card";
import { ButtonLink } from "~/components/ui/button";
import type { Route } from "./+types/confirm";

export const meta: Route.MetaFunction = () => [{ title: "Confirm your e-mail · Soundtrail" }];

export function loader() {
  return null;
}

export default function Confirm() {
  return (
    <AuthCard
      title="Confirm your e-mail"
      description="The link in your confirmation e-mail brings you here."
    >
      <div role="status" className="rounded-lg border border-border bg-muted p-4 text-sm">
        <p className="font-medium">There is nothing to confirm yet.</p>
        <p className="mt-1 text-muted-foreground">
          Accounts are not open on this instance yet, so no confirmation links have been sent.
        </p>
      </div>
      <ButtonLink to="/" variant="secondary" className="mt-4 w-full">
        Back to Soundtrail
      </ButtonLink>
    </AuthCard>
  );
}
