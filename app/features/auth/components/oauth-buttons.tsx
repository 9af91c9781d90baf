import { Form } from "react-router";
import { Button } from "~/components/ui/button";

const LABELS: Record<string, string> = { spotify: "Spotify", google: "Google", github: "GitHub" };

/** One button per configured OAuth provider; nothing when none is configured. */
export function OAuthButtons({
  providers,
  redirectTo,
}: {
  providers: string[];
  redirectTo?: string | null;
}) {
  if (providers.length === 0) return null;
  return (
    <div className="flex flex-col gap-4">
      <Form method="post" className="flex flex-col gap-2">
        <input type="hidden" name="intent" value="oauth" />
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        {providers.map((provider) => (
          <Button key={provider} type="submit" name="provider" value={provider} variant="secondary">
            Continue with {LABELS[provider] ?? provider}
          </Button>
        ))}
      </Form>
      <p className="flex items-center gap-3 text-xs text-muted-foreground before:h-px before:flex-1 before:bg-border after:h-px after:flex-1 after:bg-border">
        or
      </p>
    </div>
  );
}
