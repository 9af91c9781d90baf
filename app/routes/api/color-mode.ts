import { data, redirect } from "react-router";
import { z } from "zod";
import { COLOR_MODES } from "~/lib/color-mode";
import { colorModeSetCookie } from "~/lib/color-mode.server";
import { safeRedirectPath } from "~/lib/redirects";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/color-mode";

const schema = z.object({ mode: z.enum(COLOR_MODES) });
const labels = { system: "System", light: "Light", dark: "Dark" } as const;

function refererPath(request: Request): string | null {
  try {
    const referer = new URL(request.headers.get("Referer") ?? "");
    if (referer.origin !== new URL(request.url).origin) return null;
    return safeRedirectPath(`${referer.pathname}${referer.search}`);
  } catch {
    return null;
  }
}

export function loader() {
  throw data("Use POST to change the colour mode", { status: 405 });
}

export async function action({ request }: Route.ActionArgs) {
  const parsed = schema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) {
    throw data("Choose a colour mode: system, light or dark", { status: 400 });
  }
  const { mode } = parsed.data;
  const headers = new Headers();
  headers.append("Set-Cookie", await colorModeSetCookie(mode));
  headers.append(
    "Set-Cookie",
    await flashToastCookie({
      type: "success",
      title: `${labels[mode]} theme`,
      description:
        mode === "system" ? "Soundtrail now follows your device." : "Saved for this browser.",
    }),
  );
  // Without JavaScript the form posts here directly: go back to the page it came from.
  if (request.headers.get("Sec-Fetch-Mode") === "navigate") {
    return redirect(refererPath(request) ?? "/", { headers });
  }
  return data({ ok: true, mode }, { headers });
}
