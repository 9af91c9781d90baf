import { data, redirect } from "react-router";
import {
  changeEmail,
  confirmPhoneChange,
  deleteAccount,
  requestPhoneChange,
} from "~/features/auth/account-changes.server";
import { requireUser } from "~/features/auth/guards.server";
import { normalizePhone } from "~/features/auth/schemas";
import { getAccountOverview } from "~/features/settings/account.server";
import { AccountSettings } from "~/features/settings/components/account-settings";
import { emailChangeSchema } from "~/features/settings/schemas";
import {
  listSignInMethods,
  startLinkOAuth,
  unlinkSignInMethod,
} from "~/features/settings/sign-in-methods.server";
import { type FormFailure, formFailure, formStrings } from "~/lib/forms";
import { isNetworkFailure, keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { type ExpectedFailure, refuse } from "~/lib/route-errors.server";
import { flashToastCookie, redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-account";

export const meta: Route.MetaFunction = () => [{ title: "Account · Settings · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const [account, signInMethods] = await Promise.all([
    getAccountOverview({ userId: viewer.id }),
    listSignInMethods({ userId: viewer.id }),
  ]);
  const linkFailed = new URL(request.url).searchParams.get("link") === "failed";
  return { account, signInMethods, username: viewer.username, linkFailed };
}

function refused(intent: string, values: Record<string, string>, failure: ExpectedFailure) {
  // The password and code are never sent back; what was typed elsewhere is.
  const { password: _password, code: _code, ...kept } = values;
  return refuse(failure, { intent, values: kept, phoneSent: null as string | null });
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formStrings(await request.formData());
  const intent = values.intent ?? "";
  const { headers } = request;
  const reauth = {
    headers,
    password: values.password || undefined,
    code: values.code || undefined,
  };

  if (intent === "email") {
    const parsed = emailChangeSchema.safeParse({ newEmail: values.newEmail?.trim() });
    if (!parsed.success) {
      return refused(intent, values, {
        kind: "invalid",
        fieldErrors: { newEmail: ["Enter a valid e-mail address."] },
      });
    }
    const result = await changeEmail({ ...reauth, newEmail: parsed.data.newEmail });
    if (!result.ok) return refused(intent, values, result);
    return redirectWithToast("/settings/account", {
      type: "success",
      title: "Check your new inbox",
      description: `We sent a link to ${parsed.data.newEmail}. Your e-mail changes when you open it.`,
    });
  }

  if (intent === "phone-request" || intent === "phone-confirm") {
    const phone = normalizePhone(values.phone ?? "");
    if (!phone) {
      return refused(intent, values, {
        kind: "invalid",
        fieldErrors: {
          phone: [
            "Enter a phone number in international form, starting with + and the country code.",
          ],
        },
      });
    }
    if (intent === "phone-request") {
      const result = await requestPhoneChange({ ...reauth, phone });
      if (!result.ok) return refused(intent, values, result);
      return data({
        intent,
        ok: true as const,
        values: { phone },
        phoneSent: phone as string | null,
      });
    }
    const result = await confirmPhoneChange({ ...reauth, phone, code: values.smsCode ?? "" });
    if (!result.ok) {
      const fieldErrors = { ...result.fieldErrors };
      // The texted code has its own field; the reauth code (authenticator) keeps `code`.
      if (fieldErrors.code && result.code === undefined) {
        fieldErrors.smsCode = fieldErrors.code;
        delete fieldErrors.code;
      }
      return refuse(
        { ...result, fieldErrors },
        { intent, values: { phone }, phoneSent: phone as string | null },
      );
    }
    return redirectWithToast(
      "/settings/account",
      { type: "success", title: "Phone number saved", description: phone },
      { headers: result.headers },
    );
  }

  if (intent === "unlink") {
    const result = await unlinkSignInMethod({
      ...reauth,
      userId: viewer.id,
      methodId: values.methodId ?? "",
    });
    if (!result.ok) return refused(intent, values, result);
    return redirectWithToast("/settings/account", {
      type: "success",
      title: `Unlinked ${result.label}`,
      description: "You can no longer sign in with it.",
    });
  }

  if (intent === "link") {
    const result = await startLinkOAuth({ provider: values.provider ?? "", headers });
    if (!result.ok) return refused(intent, values, result);
    // The provider's page is another site: a full page load (spec §2).
    return redirect(result.url, { headers: result.headers });
  }

  if (intent === "delete") {
    if ((values.confirmUsername ?? "").trim().toLowerCase() !== viewer.username.toLowerCase()) {
      return refused(intent, values, {
        kind: "invalid",
        fieldErrors: { confirmUsername: [`Type your username, ${viewer.username}, to confirm.`] },
      });
    }
    const result = await deleteAccount(reauth);
    if (!result.ok) return refused(intent, values, result);
    const responseHeaders = new Headers(result.headers);
    responseHeaders.append(
      "Set-Cookie",
      await flashToastCookie({ type: "info", title: "Your account was deleted" }),
    );
    return redirect("/", { headers: responseHeaders });
  }

  return refused(intent, values, { kind: "invalid", message: "Unknown action." });
}

/**
 * A save sent while the network is down comes back as a NetworkFailure for the form to keep,
 * show and send again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ serverAction }: Route.ClientActionArgs) {
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function AccountSettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AccountSettings
      account={loaderData.account}
      username={loaderData.username}
      signInMethods={loaderData.signInMethods}
      result={
        (isNetworkFailure(actionData) ? undefined : actionData) ??
        (loaderData.linkFailed
          ? {
              intent: "link",
              ...formFailure({}, "Linking did not work. Please try again."),
              values: {},
              phoneSent: null,
            }
          : undefined)
      }
    />
  );
}
