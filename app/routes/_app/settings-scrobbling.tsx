import { data } from "react-router";
import { requireUser } from "~/features/auth/guards.server";
import { ConnectedPlayers } from "~/features/journey/listenbrainz/components/connected-players";
import {
  createListenTokenSchema,
  revokeListenTokenSchema,
} from "~/features/journey/listenbrainz/schemas";
import {
  createListenToken,
  listListenTokens,
  revokeListenToken,
} from "~/features/journey/listenbrainz/tokens.server";
import { getEnv } from "~/lib/env.server";
import { formFailure, formStrings, invalidForm } from "~/lib/forms";
import { isNetworkFailure, keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { forForm } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/settings-scrobbling";

export const meta: Route.MetaFunction = () => [
  { title: "Connected players · Settings · Soundtrail" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return {
    tokens: await listListenTokens({ userId: viewer.id }),
    baseUrl: getEnv().BASE_URL.replace(/\/+$/, ""),
    username: viewer.username,
  };
}

const HERE = "/settings/scrobbling";

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const values = formStrings(await request.formData());
  const intent = values.intent ?? "";

  if (intent === "create") {
    const parsed = createListenTokenSchema.safeParse(values);
    if (!parsed.success) {
      return data({ intent, ...invalidForm(parsed.error), values }, { status: 400 });
    }
    const created = await forForm({ intent, values }, () =>
      createListenToken({ userId: viewer.id, name: parsed.data.name }),
    );
    // Answered as data, never in a redirect or a cookie: the token is shown this once.
    return data(
      { intent: "create" as const, created: { name: created.name, token: created.token } },
      { headers: { "Cache-Control": "no-store" } },
    );
  }

  if (intent === "revoke") {
    const parsed = revokeListenTokenSchema.safeParse(values);
    const toast = { to: HERE, title: "That did not work" };
    if (!parsed.success) {
      return redirectWithToast(toast.to, {
        type: "error",
        title: toast.title,
        description: "That token does not exist.",
      });
    }
    const { name } = await forForm({ toast }, () =>
      revokeListenToken({ userId: viewer.id, tokenId: parsed.data.tokenId }),
    );
    return redirectWithToast(HERE, {
      type: "success",
      title: `Revoked “${name}”`,
      description: "The player that used it can no longer send listens.",
    });
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

export default function ScrobblingSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ConnectedPlayers
      baseUrl={loaderData.baseUrl}
      username={loaderData.username}
      tokens={loaderData.tokens}
      result={isNetworkFailure(actionData) ? undefined : actionData}
    />
  );
}
