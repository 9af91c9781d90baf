import { requireUser } from "~/features/auth/guards.server";
import { exportPersonData } from "~/features/settings/export.server";
import type { Route } from "./+types/settings-data-export";

/** `/settings/data/export`: the signed-in person's own data as a JSON download. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const body = JSON.stringify(await exportPersonData({ userId: viewer.id }), null, 2);
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="soundtrail-${viewer.username}-${day}.json"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
