import { Link } from "react-router";
import { AuthCard } from "~/components/layout/auth-card";
import { ButtonLink } from "~/components/ui/button";
import { safeRedirectPath } from "~/lib/redirects";
import type { Route } from "./+types/login";

export const meta: Route.MetaFunction = () => [{ title: "Sign in · Soundtrail" }];

export function loader({ request }: Route.LoaderArgs) {
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"));
  return { redirectTo };
}

export default function Login({ loaderData }: Route.ComponentProps) {
  return (
    <AuthCard
      title="Sign in"
      description="Welcome back to Soundtrail."
      footer={
        <>
          New here?{" "}
          <Link to="/auth/signup" prefetch="intent" className="font-medium text-primary underline">
            Create an account
          </Link>
        </>
      }
    >
      <div role="status" className="rounded-lg border border-border bg-muted p-4 text-sm">
        <p className="font-medium">Accounts are not open on this instance yet.</p>
        <p className="mt-1 text-muted-foreground">
          Sign-in arrives with the accounts release. Meanwhile the public feed is open to everyone.
          {loaderData.redirectTo ? (
            <>
              {" "}
              After signing in you will be taken back to{" "}
              <code className="font-mono">{loaderData.redirectTo}</code>.
            </>
          ) : null}
        </p>
      </div>
      <ButtonLink to="/feed" variant="secondary" className="mt-4 w-full">
        Browse the public feed
      </ButtonLink>
    </AuthCard>
  );
}
