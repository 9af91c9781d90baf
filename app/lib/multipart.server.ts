import { AppError } from "~/core/errors";

/**
 * Reads a form body, refusing bodies over `maxBytes` while they stream in (a missing or
 * false Content-Length cannot get past the limit).
 */
export async function readFormData(request: Request, maxBytes: number): Promise<FormData> {
  const tooLarge = () =>
    new AppError("too_large", "Images can be at most 10 MB. Choose a smaller one.");
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return request.formData();
  let received = 0;
  const limited = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  const headers = new Headers();
  const type = request.headers.get("Content-Type");
  if (type) headers.set("Content-Type", type);
  try {
    return await new Response(limited, { headers }).formData();
  } catch {
    if (received > maxBytes) throw tooLarge();
    throw new AppError("invalid", "The form could not be read. Please try again.");
  }
}
