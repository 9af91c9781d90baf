import { Form } from "react-router";
import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/lib/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = () => [{ title: "Settings · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

export default function Settings() {
  const colorMode = useColorModePreference();
  return (
    <>
      <PageHeader title="Settings">Tune Soundtrail to your taste.</PageHeader>
      <Card>
        <h2 className="text-lg font-semibold">Appearance</h2>
        <p className="mt-1 mb-4 text-sm text-muted-foreground">
          Follow your device, or always use the light or dark theme.
        </p>
        <ColorModeSwitch current={colorMode} />
      </Card>
      <Card className="mt-6">
        <h2 className="text-lg font-semibold">Sessions</h2>
        <p className="mt-1 mb-4 text-sm text-muted-foreground">
          Lost a phone or used a shared computer? End every session, including this one.
        </p>
        <Form method="post" action="/auth/logout">
          <input type="hidden" name="everywhere" value="1" />
          <Button type="submit" variant="secondary">
            Sign out everywhere
          </Button>
        </Form>
      </Card>
    </>
  );
}
