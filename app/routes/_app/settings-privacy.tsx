import { data } from "react-router";
import { requireUser } from "~/features/auth/guards.server";
import { unblockUser } from "~/features/blocks/blocks.server";
import {
  acceptFollowRequest,
  declineFollowRequest,
  listFollowRequests,
} from "~/features/follows/requests.server";
import { BlockedPeople } from "~/features/settings/components/blocked-people";
import { JourneyPrivacyForm } from "~/features/settings/components/journey-privacy-form";
import { FollowRequests, PrivacyForm } from "~/features/settings/components/privacy-form";
import {
  getJourneyPrivacy,
  getPrivacySettings,
  listBlockedPeople,
  saveJourneyPrivacy,
  savePrivacySettings,
  unhideJourneyArtist,
} from "~/features/settings/privacy.server";
import {
  journeyPrivacySchema,
  privacySchema,
  unhideArtistSchema,
} from "~/features/settings/schemas";
import { formFailure, formStrings, invalidForm } from "~/lib/forms";
import { isNetworkFailure, keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { forForm } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-privacy";

export const meta: Route.MetaFunction = () => [{ title: "Privacy · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const page = Number(new URL(request.url).searchParams.get("requests") ?? 1);
  const [settings, journey, requests, blocked] = await Promise.all([
    getPrivacySettings({ userId: viewer.id }),
    getJourneyPrivacy({ userId: viewer.id }),
    listFollowRequests({ viewerId: viewer.id, page: Number.isSafeInteger(page) ? page : 1 }),
    listBlockedPeople({ viewerId: viewer.id }),
  ]);
  return { settings, journey, requests, blocked };
}

const HERE = "/settings/privacy";

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await request.formData();
  const values = formStrings(form);
  const intent = values.intent ?? "";
  const name = (values.name ?? "").slice(0, 80);

  if (intent === "privacy") {
    const parsed = privacySchema.safeParse(values);
    if (!parsed.success) {
      return data({ intent, ...invalidForm(parsed.error), values }, { status: 400 });
    }
    const { accepted } = await forForm({ intent, values }, () =>
      savePrivacySettings({ userId: viewer.id, ...parsed.data }),
    );
    return redirectWithToast(HERE, {
      type: "success",
      title: "Privacy settings saved",
      description:
        accepted > 0
          ? `${accepted} waiting ${accepted === 1 ? "request was" : "requests were"} accepted: anyone may follow you now.`
          : undefined,
    });
  }

  if (intent === "journey") {
    const parsed = journeyPrivacySchema.safeParse({
      ...values,
      hiddenArtists: form.getAll("hiddenArtist").filter((v) => typeof v === "string"),
    });
    if (!parsed.success) {
      return data({ intent, ...invalidForm(parsed.error), values }, { status: 400 });
    }
    const { added } = await forForm({ intent, values }, () =>
      saveJourneyPrivacy({ userId: viewer.id, ...parsed.data }),
    );
    return redirectWithToast(`${HERE}#journey`, {
      type: "success",
      title: "Journey settings saved",
      description: added ? `Others no longer see ${added} in your journey.` : undefined,
    });
  }

  if (intent === "journey-unhide") {
    const parsed = unhideArtistSchema.safeParse(values);
    if (!parsed.success) {
      return data({ intent: "journey", ...invalidForm(parsed.error), values }, { status: 400 });
    }
    await unhideJourneyArtist({ userId: viewer.id, artistKey: parsed.data.artistKey });
    return redirectWithToast(`${HERE}#journey`, {
      type: "success",
      title: "Artist shown again",
      description: "Others who may see your journey see this artist again.",
    });
  }

  if (intent === "accept" || intent === "decline" || intent === "unblock") {
    const targetId = (intent === "unblock" ? values.userId : values.requesterId) ?? "";
    await forForm({ toast: { to: HERE, title: "That did not work" } }, async () => {
      if (intent === "accept") {
        await acceptFollowRequest({ viewerId: viewer.id, requesterId: targetId });
      } else if (intent === "decline") {
        await declineFollowRequest({ viewerId: viewer.id, requesterId: targetId });
      } else {
        await unblockUser({ viewerId: viewer.id, targetId });
      }
    });
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

  return data({ intent, ...formFailure({}, "Unknown action."), values }, { status: 400 });
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function PrivacySettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, journey, requests, blocked } = loaderData;
  // A save the network let down is each form's to show (ADR 037), not a refusal.
  const result = isNetworkFailure(actionData) ? undefined : actionData;
  return (
    <div className="flex flex-col gap-6">
      <PrivacyForm settings={settings} result={result} />
      <JourneyPrivacyForm settings={journey} result={result} />
      <FollowRequests {...requests} requiresApproval={settings.requiresFollowApproval} />
      <BlockedPeople people={blocked} />
    </div>
  );
}
