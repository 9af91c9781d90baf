import { getEnv, publicEnv } from "~/lib/env.server";
import type { AuthFailure, AuthResult } from "./accounts.server";
import { callAuth } from "./call-auth.server";

export type OAuthProvider = "spotify" | "google" | "github";

export const OAUTH_LABELS: Record<OAuthProvider, string> = {
  spotify: "Spotify",
  google: "Google",
  github: "GitHub",
};

export function configuredProviders(): OAuthProvider[] {
  return publicEnv(getEnv()).oauthProviders;
}

/** Starts an OAuth sign-in: the provider's authorisation URL plus the state cookie. */
export async function startOAuth(options: {
  provider: string;
  redirectTo: string;
  headers: Headers;
}): Promise<(AuthResult & { ok: true; url: string }) | AuthFailure> {
  const provider = configuredProviders().find((p) => p === options.provider);
  if (!provider) {
    return {
      ok: false,
      kind: "invalid",
      message: "That sign-in provider is not available.",
    };
  }
  const answer = await callAuth((api) =>
    api.signInSocial({
      body: {
        provider,
        callbackURL: options.redirectTo,
        errorCallbackURL: "/auth/login?error=oauth",
      },
      headers: options.headers,
      asResponse: true,
    }),
  );
  const body = (await answer.response
    .clone()
    .json()
    .catch(() => ({}))) as { url?: string };
  if (!answer.ok || !body.url) {
    return {
      ok: false,
      kind: "upstream",
      message: `We could not reach ${OAUTH_LABELS[provider]}. Please try again.`,
    };
  }
  return { ok: true, headers: answer.headers, url: body.url };
}
