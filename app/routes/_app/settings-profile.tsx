import { data } from "react-router";
import { requireUser } from "~/features/auth/guards.server";
import { UPLOAD_BODY_MAX_BYTES } from "~/features/posts/constants";
import { ProfileSettingsForm } from "~/features/settings/components/profile-form";
import {
  checkUsername,
  getProfileSettings,
  removeAvatar,
  setAvatar,
  updateProfile,
} from "~/features/settings/profile.server";
import { profileSchema } from "~/features/settings/schemas";
import { formFailure, formStrings, invalidForm } from "~/lib/forms";
import { readFormData } from "~/lib/multipart.server";
import { isNetworkFailure, keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { forForm } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-profile";

export const meta: Route.MetaFunction = () => [{ title: "Profile · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const check = new URL(request.url).searchParams.get("username");
  return {
    profile: await getProfileSettings({ userId: viewer.id }),
    // The form asks as the person types (`?username=`); the answer says why a name is refused.
    usernameCheck:
      check === null ? null : await checkUsername({ viewerId: viewer.id, username: check }),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await forForm({ intent: "avatar", field: "avatar", values: {} }, () =>
    readFormData(request, UPLOAD_BODY_MAX_BYTES),
  );
  const values = formStrings(form);
  const intent = values.intent ?? "profile";

  if (intent === "avatar" || intent === "remove-avatar") {
    const echo = { intent, field: "avatar", values };
    if (intent === "remove-avatar") {
      await forForm(echo, () => removeAvatar({ userId: viewer.id }));
    } else {
      const file = form.get("avatar");
      const bytes = file instanceof File ? new Uint8Array(await file.arrayBuffer()) : null;
      if (!bytes || bytes.byteLength === 0) {
        return data(
          { intent, ...formFailure({ avatar: ["Choose a picture first."] }), values },
          { status: 400 },
        );
      }
      await forForm(echo, () => setAvatar({ userId: viewer.id, file: bytes }));
    }
    return redirectWithToast("/settings/profile", {
      type: "success",
      title: intent === "avatar" ? "Picture updated" : "Picture removed",
    });
  }

  const parsed = profileSchema.safeParse(values);
  if (!parsed.success) {
    return data({ intent, ...invalidForm(parsed.error), values }, { status: 400 });
  }
  await forForm({ intent, values, field: { conflict: "username" } }, () =>
    updateProfile({ userId: viewer.id, ...parsed.data }),
  );
  return redirectWithToast("/settings/profile", { type: "success", title: "Profile saved" });
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function ProfileSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ProfileSettingsForm
      profile={loaderData.profile}
      result={isNetworkFailure(actionData) ? undefined : actionData}
    />
  );
}
