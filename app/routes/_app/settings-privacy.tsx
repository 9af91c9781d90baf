import { data } from "react-router";
import { unblockUser } from "~/features/blocks/blocks.server";
import {
  acceptFollowRequest,
  declineFollowRequest,
  listFollowRequests,
} from "~/features/follows/requests.server";
import { BlockedPeople } from "~/features/settings/components/blocked-people";
import { FollowRequests, PrivacyForm } from "~/features/settings/components/privacy-form";
import {
  getPrivacySettings,
  listBlockedPeople,
  savePrivacySettings,
} from "~/features/settings/privacy.server";
import { privacySchema } from "~/features/settings/schemas";
import { isAppError, statusForAppError } from "~/lib/errors";
import { formStrings, zodFieldErrors } from "~/lib/forms";
import { requireUser } from "~/lib/guards.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-privacy";

export const meta: Route.MetaFunction = () => [{ title: "Privacy · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const page = Number(new URL(request.url).searchParams.get("requests") ?? 1);
  const [settings, requests, blocked] = await Promise.all([
    getPrivacySettings({ userId: viewer.id }),
    listFollowRequests({ viewerId: viewer.id, page: Number.isSafeInteger(page) ? page : 1 }),
    listBlockedPeople({ viewerId: viewer.id }),
  ]);
  return { settings, requests, blocked };
}

const HERE = "/settings/privacy";

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formStrings(await request.formData());
  const intent = values.intent ?? "";
  const name = (values.name ?? "").slice(0, 80);

  if (intent === "privacy") {
    const parsed = privacySchema.safeParse(values);
    if (!parsed.success) {
      return data({ intent, errors: zodFieldErrors(parsed.error), values }, { status: 400 });
    }
    try {
      const { accepted } = await savePrivacySettings({ userId: viewer.id, ...parsed.data });
      return redirectWithToast(HERE, {
        type: "success",
        title: "Privacy settings saved",
        description:
          accepted > 0
            ? `${accepted} waiting ${accepted === 1 ? "request was" : "requests were"} accepted: anyone may follow you now.`
            : undefined,
      });
    } catch (error) {
      if (!isAppError(error)) throw error;
      return data(
        { intent, errors: { form: [error.message] }, values },
        { status: statusForAppError(error.code) },
      );
    }
  }

  if (intent === "accept" || intent === "decline" || intent === "unblock") {
    const targetId = (intent === "unblock" ? values.userId : values.requesterId) ?? "";
    try {
      if (intent === "accept") {
        await acceptFollowRequest({ viewerId: viewer.id, requesterId: targetId });
      } else if (intent === "decline") {
        await declineFollowRequest({ viewerId: viewer.id, requesterId: targetId });
      } else {
        await unblockUser({ viewerId: viewer.id, targetId });
      }
    } catch (error) {
      if (!isAppError(error)) throw error;
      return redirectWithToast(HERE, {
        type: "error",
        title: "That did not work",
        description: error.message,
      });
    }
    const who = name || "them";
    return redirectWithToast(
      HERE,
      intent === "accept"
        ? { type: "success", title: `${who} follows you now` }
        : intent === "decline"
          ? {
              type: "success",
              title: `Declined ${who}'s request`,
              description: "They are not told.",
            }
          : {
              type: "success",
              title: name ? `Unblocked ${name}` : "Unblocked",
              description: "You can follow each other again.",
            },
    );
  }

  return data({ intent, errors: { form: ["Unknown action."] }, values }, { status: 400 });
}

export default function PrivacySettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, requests, blocked } = loaderData;
  return (
    <div className="flex flex-col gap-6">
      <PrivacyForm settings={settings} result={actionData} />
      <FollowRequests {...requests} requiresApproval={settings.requiresFollowApproval} />
      <BlockedPeople people={blocked} />
    </div>
  );
}
