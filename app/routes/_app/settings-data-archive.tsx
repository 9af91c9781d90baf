import { requireUser } from "~/features/auth/guards.server";
import { getDataExportFile } from "~/features/settings/export-archive.server";
import type { Route } from "./+types/settings-data-archive";

/** `/settings/data/export/:id`: the prepared zip, for its owner only (the mailed link). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const file = await getDataExportFile({ userId: viewer.id, id: params.id });
  const day = file.createdAt.toISOString().slice(0, 10);
  return new Response(file.body, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Length": String(file.byteSize),
      "Content-Disposition": `attachment; filename="soundtrail-${viewer.username}-${day}.zip"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
