import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
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
    </>
  );
}
