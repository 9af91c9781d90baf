import { data } from "react-router";
import { z } from "zod";
import { getViewer } from "~/features/auth/guards.server";
import { SUGGEST_FIELDS, suggestMusic } from "~/features/posts/posts.server";
import type { Route } from "./+types/music-suggest";

const schema = z.object({ field: z.enum(SUGGEST_FIELDS), q: z.string().max(100).default("") });

/** Composer autocomplete: `GET /api/music-suggest?field=artist&q=rad` → `{ suggestions: [...] }`. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const viewer = getViewer(context);
  if (!viewer) throw data("Sign in to get suggestions", { status: 401 });
  const url = new URL(request.url);
  const parsed = schema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw data("Ask for title, artist or album suggestions", { status: 400 });
  const suggestions = await suggestMusic({
    viewerId: viewer.id,
    field: parsed.data.field,
    prefix: parsed.data.q,
  });
  return data(
    { field: parsed.data.field, suggestions },
    { headers: { "Cache-Control": "private, max-age=60" } },
  );
}
