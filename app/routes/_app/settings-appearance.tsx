import { ColorModeSwitch } from "~/components/layout/color-mode-switch";
import { Card } from "~/components/ui/card";
import { SectionHeader } from "~/components/ui/section-header";
import { requireUser } from "~/features/auth/guards.server";
import { useColorModePreference } from "~/lib/use-color-mode";
import type { Route } from "./+types/settings-appearance";

export const meta: Route.MetaFunction = () => [{ title: "Appearance · Settings · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

export default function AppearanceSettings() {
  const colorMode = useColorModePreference();
  return (
    <Card>
      <SectionHeader title="Appearance">
        Follow your device, or always use the light or dark theme. Animations follow your device's
        “reduce motion” setting.
      </SectionHeader>
      <ColorModeSwitch current={colorMode} />
    </Card>
  );
}
