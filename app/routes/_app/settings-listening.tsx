import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { AppError } from "~/core/errors";
import { requireUser } from "~/features/auth/guards.server";
import { ListeningHistorySettings } from "~/features/journey/components/listening-history";
import {
  cancelListenImport,
  confirmListenImport,
  createListenImport,
  listListenImports,
} from "~/features/journey/import.server";
import { IMPORT_MAX_BYTES, IMPORT_MAX_FILES } from "~/features/journey/import-constants";
import { failureIn } from "~/lib/forms";
import { saveMultipartFiles } from "~/lib/multipart.server";
import { keepOnNetworkFailure } from "~/lib/resilient-send";
import { skipRevalidationAfterNetworkFailure } from "~/lib/revalidation";
import { redirectWithToast } from "~/lib/toast.server";
import { sendWithUploadProgress } from "~/lib/upload-progress";
import type { Route } from "./+types/settings-listening";

export const meta: Route.MetaFunction = () => [
  { title: "Listening history · Settings · Soundtrail" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  return { imports: await listListenImports({ userId: viewer.id }) };
}

const decisionSchema = z.object({
  intent: z.enum(["confirm", "cancel"], { message: "Choose Import or Cancel." }),
  importId: z.uuid({ message: "This import does not exist or is not yours." }),
});

const TOO_LARGE = `The files are too large: at most ${IMPORT_MAX_BYTES / 1024 / 1024} MB can be uploaded at once. Upload them in parts.`;

/** Confirms or cancels a preview, as the form's fields say. */
async function decide(userId: string, fields: Record<string, unknown>) {
  const parsed = decisionSchema.safeParse(fields);
  if (!parsed.success) {
    throw new AppError("invalid", parsed.error.issues[0]?.message ?? "The form could not be read.");
  }
  const { intent, importId } = parsed.data;
  if (intent === "confirm") {
    await confirmListenImport({ userId, importId });
    return redirectWithToast("/settings/listening", {
      type: "success",
      title: "Importing your listening history",
      description: "You can leave this page: you get a notification when it is done.",
    });
  }
  await cancelListenImport({ userId, importId });
  return redirectWithToast("/settings/listening", {
    type: "info",
    title: "Import cancelled",
    description: "Nothing was added to your listening history.",
  });
}

/**
 * The upload form: its files are streamed to a temporary folder (never held in memory), read
 * into a preview, and deleted again whatever happens.
 */
async function upload(request: Request, userId: string) {
  const dir = await mkdtemp(path.join(tmpdir(), "soundtrail-import-"));
  try {
    const form = await saveMultipartFiles(request, {
      dir,
      maxFiles: IMPORT_MAX_FILES,
      maxBytes: IMPORT_MAX_BYTES,
      tooLargeMessage: TOO_LARGE,
    });
    const intent = form.fields.get("intent");
    if (intent !== undefined && intent !== "upload") {
      return await decide(userId, Object.fromEntries(form.fields));
    }
    const files = form.files.filter((f) => f.field === "files");
    if (files.length === 0) throw new AppError("invalid", "Choose at least one file to import.");
    const created = await createListenImport({
      userId,
      files: files.map((f) => ({ name: f.name, path: f.path })),
    });
    return redirectWithToast("/settings/listening", {
      type: "success",
      title: "Your files are read",
      description: `${(created.summary?.plays ?? 0).toLocaleString("en-US")} plays found. Check the preview, then import.`,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const type = request.headers.get("Content-Type") ?? "";
  if (/^multipart\/form-data/i.test(type)) return upload(request, viewer.id);
  return decide(viewer.id, Object.fromEntries(await request.formData()));
}

/**
 * The upload goes over XMLHttpRequest so the form can show how much is sent (fetch cannot tell);
 * the server action and its answers are the same. Confirm and Cancel go the usual way. A send
 * while the network is down comes back as a NetworkFailure for the form to keep, show and send
 * again (ADR 037), not as an error that replaces the page.
 */
export function clientAction({ request, serverAction }: Route.ClientActionArgs) {
  const type = request.headers.get("Content-Type") ?? "";
  if (/^multipart\/form-data/i.test(type)) {
    return keepOnNetworkFailure(() => sendWithUploadProgress(request));
  }
  return keepOnNetworkFailure(serverAction);
}

export const shouldRevalidate = skipRevalidationAfterNetworkFailure;

export default function ListeningSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ListeningHistorySettings
      imports={loaderData.imports}
      error={failureIn(actionData)?.message ?? null}
    />
  );
}
