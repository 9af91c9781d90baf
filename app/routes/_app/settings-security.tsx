import { data } from "react-router";
import { changePassword } from "~/features/auth/account-changes.server";
import { SecuritySettings } from "~/features/auth/components/security-settings";
import { requireUser } from "~/features/auth/guards.server";
import { formValues } from "~/features/auth/schemas";
import {
  confirmTotpEnrollment,
  disableTwoFactor,
  getSecurityOverview,
  qrCodeOf,
  regenerateBackupCodesWithReauth,
  startTotpEnrollment,
} from "~/features/auth/two-factor.server";
import { SessionsList } from "~/features/settings/components/sessions-list";
import {
  getCurrentSessionId,
  listSessions,
  revokeOtherSessions,
  revokeSession,
} from "~/features/settings/sessions.server";
import { formFailure } from "~/lib/forms";
import { keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { forForm, refuse } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-security";

export const meta: Route.MetaFunction = () => [{ title: "Security · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const currentSessionId = await getCurrentSessionId(request.headers);
  const [security, sessions] = await Promise.all([
    getSecurityOverview(viewer.id),
    listSessions({ userId: viewer.id, currentSessionId }),
  ]);
  return { security, sessions, isGuest: viewer.isGuest };
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formValues(await request.formData());
  const intent = values.intent ?? "";
  const { headers } = request;

  if (intent === "revoke-session" || intent === "revoke-others") {
    const currentSessionId = await getCurrentSessionId(headers);
    const echo = { toast: { to: "/settings/security", title: "Could not end that session" } };
    if (intent === "revoke-others") {
      const ended = await forForm(echo, () =>
        revokeOtherSessions({ userId: viewer.id, currentSessionId }),
      );
      return redirectWithToast("/settings/security", {
        type: "success",
        title: "Signed out your other devices",
        description: `${ended} ${ended === 1 ? "session" : "sessions"} ended.`,
      });
    }
    await forForm(echo, () =>
      revokeSession({ userId: viewer.id, sessionId: values.sessionId ?? "", currentSessionId }),
    );
    return redirectWithToast("/settings/security", {
      type: "success",
      title: "Session ended",
      description: "That device is signed out on its next request.",
    });
  }

  if (intent === "2fa-start") {
    const result = await startTotpEnrollment({ headers, password: values.password });
    if (!result.ok) return refuse(result, { intent });
    return { intent, ok: true as const, secret: result.secret, uri: result.uri, qr: result.qr };
  }
  if (intent === "2fa-confirm") {
    const result = await confirmTotpEnrollment({
      userId: viewer.id,
      code: values.code ?? "",
      headers,
    });
    if (!result.ok) {
      const uri = values.uri ?? "";
      return refuse(result, { intent, secret: values.secret ?? "", uri, qr: qrCodeOf(uri) });
    }
    return data(
      { intent, ok: true as const, backupCodes: result.backupCodes },
      { headers: result.headers },
    );
  }
  if (intent === "2fa-disable") {
    const result = await disableTwoFactor({
      userId: viewer.id,
      headers,
      password: values.password,
      code: values.code,
    });
    if (!result.ok) return refuse(result, { intent });
    return data({ intent, ok: true as const }, { headers: result.headers });
  }
  if (intent === "backup-codes") {
    const result = await regenerateBackupCodesWithReauth({
      userId: viewer.id,
      headers,
      password: values.password,
      code: values.code,
    });
    if (!result.ok) {
      return refuse(result, { intent, needs: "needs" in result ? result.needs : undefined });
    }
    return data({ intent, ok: true as const, backupCodes: result.backupCodes });
  }
  if (intent === "password") {
    const result = await changePassword({
      headers,
      currentPassword: values.currentPassword ?? "",
      newPassword: values.newPassword ?? "",
      code: values.code,
      // A checkbox: sent as "on" when ticked (it is by default), absent when not.
      signOutOthers: values.signOutOthers === "on",
    });
    if (!result.ok) return refuse(result, { intent });
    return data(
      { intent, ok: true as const, signedOutOthers: values.signOutOthers === "on" },
      { headers: result.headers },
    );
  }
  return data({ intent, ...formFailure({}, "Unknown action.") }, { status: 400 });
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function SecuritySettingsPage({ loaderData }: Route.ComponentProps) {
  return (
    <div className="[&>*:first-child]:mt-0">
      {loaderData.isGuest ? null : <SecuritySettings {...loaderData.security} />}
      <SessionsList sessions={loaderData.sessions} />
    </div>
  );
}
