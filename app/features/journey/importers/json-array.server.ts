import { type Readable, Transform } from "node:stream";
import { streamArray } from "stream-json/streamers/stream-array.js";

/** Most bytes one element of a history file may take (a play takes a few hundred). */
export const MAX_ELEMENT_BYTES = 4 * 1024 * 1024;

/**
 * The elements of a top-level JSON array, one at a time, without holding the file: each comes
 * with its 1-based position. A file that is not a JSON array, or breaks off, ends with an
 * `error` item saying after which element.
 */
export async function* jsonArrayElements(
  input: Readable,
): AsyncGenerator<{ index: number; value: unknown } | { index: number; error: string }> {
  // The parser holds an element (and each string in it) whole until it ends: a file whose
  // element never ends would fill the memory. Far more bytes than any play since the last
  // element ends the read instead.
  let fed = 0;
  let atLastElement = 0;
  let isTooLarge = false;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      fed += chunk.length;
      if (fed - atLastElement > MAX_ELEMENT_BYTES) {
        isTooLarge = true;
        callback(new Error("element too large"));
      } else callback(null, chunk);
    },
  });
  const elements = input.pipe(guard).pipe(streamArray.withParserAsStream({ streamValues: false }));
  input.once("error", (error) => elements.destroy(error));
  guard.once("error", (error) => elements.destroy(error));
  let index = 0;
  try {
    for await (const item of elements as AsyncIterable<{ key: number; value: unknown }>) {
      index = item.key + 1;
      atLastElement = fed;
      yield { index, value: item.value };
    }
  } catch {
    yield {
      index: index + 1,
      error: isTooLarge
        ? `Entry ${index + 1} is far too large to be a play; the rest of the file was not read.`
        : index === 0
          ? "The file is not a JSON list of plays."
          : `The file is not valid JSON after entry ${index}; the rest of it was not read.`,
    };
  } finally {
    guard.destroy();
    elements.destroy();
    input.destroy();
  }
}
