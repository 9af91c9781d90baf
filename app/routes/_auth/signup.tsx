import { Link } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { ButtonLink } from "~/components/ui/button";
import type { Route } from "./+types/signup";

export const meta: Route.MetaFunction = () => [{ title: "Create your account · Soundtrail" }];

export function loader() {
  return null;
}

export default function Signup() {
  return (
    <AuthCard
      title="Create your account"
      description="Share your music journey with friends."
      footer={
        <>
          Already have an account?{" "}
          <Link to="/auth/login" prefetch="intent" className="font-medium text-primary underline">
            Sign in
          </Link>
        </>
      }
    >
      <div role="status" className="rounded-lg border border-border bg-muted p-4 text-sm">
        <p className="font-medium">Sign-ups are not open on this instance yet.</p>
        <p className="mt-1 text-muted-foreground">
          Accounts arrive with the next release. You can already look around the public feed.
        </p>
      </div>
      <ButtonLink to="/feed" variant="secondary" className="mt-4 w-full">
        Browse the public feed
      </ButtonLink>
    </AuthCard>
  );
}
