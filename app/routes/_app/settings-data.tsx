import { Download } from "lucide-react";
import { Link } from "react-router";
import { buttonClasses } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SectionHeader } from "~/features/settings/components/settings-nav";
import { requireUser } from "~/lib/guards.server";
import type { Route } from "./+types/settings-data";

export const meta: Route.MetaFunction = () => [{ title: "Your data · Settings · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

export default function DataSettings() {
  return (
    <div className="flex flex-col gap-6">
      <Card>
        <SectionHeader title="Your data">
          Take a copy of everything you created here: your profile, posts (with links to their
          images), comments, likes, follows, blocks, notifications and settings, as one JSON file.
          Nothing of other people's private posts is in it.
        </SectionHeader>
        <a
          href="/settings/data/export"
          download
          className={buttonClasses("primary", "md", "self-start")}
        >
          <Download aria-hidden="true" className="size-4" />
          Download my data (JSON)
        </a>
      </Card>
      <Card>
        <h3 className="text-lg font-semibold">Leaving?</h3>
        <p className="mt-1 text-sm text-muted-foreground">
          You can delete your account under{" "}
          <Link to="/settings/account" className="font-medium text-primary underline">
            Account
          </Link>
          . Download your data first if you want to keep it.
        </p>
      </Card>
    </div>
  );
}
