import { data } from "react-router";
import { appErrorInit, isAppError } from "~/core/errors";
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
    try {
      const created = await createListenToken({ userId: viewer.id, name: parsed.data.name });
      // Answered as data, never in a redirect or a cookie: the token is shown this once.
      return data(
        { intent: "create" as const, created: { name: created.name, token: created.token } },
        { headers: { "Cache-Control": "no-store" } },
      );
    } catch (error) {
      if (!isAppError(error)) throw error;
      return data({ intent, ...formFailure({}, error.message), values }, appErrorInit(error));
    }
  }

  if (intent === "revoke") {
    const parsed = revokeListenTokenSchema.safeParse(values);
    try {
      if (!parsed.success) throw parsed.error;
      const { name } = await revokeListenToken({ userId: viewer.id, tokenId: parsed.data.tokenId });
      return redirectWithToast(HERE, {
        type: "success",
        title: `Revoked “${name}”`,
        description: "The player that used it can no longer send listens.",
      });
    } catch (error) {
      if (!isAppError(error) && parsed.success) throw error;
      return redirectWithToast(HERE, {
        type: "error",
        title: "That did not work",
        description: isAppError(error) ? error.message : "That token does not exist.",
      });
    }
  }

  return data({ intent, ...formFailure({}, "Unknown action."), values }, { status: 400 });
}

export default function ScrobblingSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ConnectedPlayers
      baseUrl={loaderData.baseUrl}
      username={loaderData.username}
      tokens={loaderData.tokens}
      result={actionData}
    />
  );
}
