import { unblockUser } from "~/features/blocks/blocks.server";
import { BlockedPeople } from "~/features/settings/components/blocked-people";
import { listBlockedPeople } from "~/features/settings/privacy.server";
import { requireUser } from "~/lib/guards.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-privacy";

export const meta: Route.MetaFunction = () => [{ title: "Privacy · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { blocked: await listBlockedPeople({ viewerId: viewer.id }) };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await request.formData();
  const targetId = String(form.get("userId") ?? "");
  const name = String(form.get("name") ?? "").slice(0, 80);
  await unblockUser({ viewerId: viewer.id, targetId });
  return redirectWithToast("/settings/privacy", {
    type: "success",
    title: name ? `Unblocked ${name}` : "Unblocked",
    description: "You can follow each other again.",
  });
}

export default function PrivacySettings({ loaderData }: Route.ComponentProps) {
  return <BlockedPeople people={loaderData.blocked} />;
}
