import { isAppError } from "~/core/errors";
import { type ProcessedImage, processImage } from "~/features/media/index.server";
import {
  type FieldErrors,
  type FormFailure,
  formFailure,
  formStrings,
  zodFieldErrors,
} from "~/lib/forms";
import { readFormData } from "~/lib/multipart.server";
import type { ComposerValues } from "./components/composer";
import { UPLOAD_BODY_MAX_BYTES } from "./constants";
import { type PostInput, postInputSchema } from "./schemas";

export type ParsedPostForm =
  | {
      ok: true;
      input: PostInput;
      image: ProcessedImage | null;
      removeImage: boolean;
      form: FormData;
    }
  | (FormFailure & { values: ComposerValues; form: FormData | null });

/**
 * Reads the composer's multipart form: the fields through the shared Zod schema, the image
 * through sharp. Every problem comes back next to its field, with what was typed kept.
 */
export async function parsePostForm(request: Request): Promise<ParsedPostForm> {
  let form: FormData;
  try {
    form = await readFormData(request, UPLOAD_BODY_MAX_BYTES);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return {
      ...formFailure({ [error.code === "too_large" ? "image" : "form"]: [error.message] }),
      values: {},
      form: null,
    };
  }
  const strings = formStrings(form);
  const values: ComposerValues = {
    kind: strings.kind,
    title: strings.title,
    artist: strings.artist,
    album: strings.album,
    linkUrl: strings.linkUrl,
    note: strings.note,
    mood: strings.mood,
    audience: strings.audience,
  };
  const parsed = postInputSchema.safeParse(strings);
  const errors: FieldErrors = parsed.success ? {} : zodFieldErrors(parsed.error);
  let image: ProcessedImage | null = null;
  const file = form.get("image");
  if (file instanceof File && file.size > 0) {
    try {
      image = await processImage(new Uint8Array(await file.arrayBuffer()));
    } catch (error) {
      if (!isAppError(error)) throw error;
      errors.image = [error.message];
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) {
    return { ...formFailure(errors), values, form };
  }
  return { ok: true, input: parsed.data, image, removeImage: strings.removeImage === "1", form };
}
