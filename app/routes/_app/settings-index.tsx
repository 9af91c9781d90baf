import { requireUser } from "~/features/auth/guards.server";
import { SettingsList } from "~/features/settings/components/settings-nav";
import type { Route } from "./+types/settings-index";

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  return null;
}

/** /settings: every section in one list (on a phone, the way in; on a wide screen, a map). */
export default function SettingsIndex() {
  return <SettingsList />;
}
