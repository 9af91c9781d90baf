import type { Readable } from "node:stream";
import { streamArray } from "stream-json/streamers/stream-array.js";

/**
 * The elements of a top-level JSON array, one at a time, without holding the file: each comes
 * with its 1-based position. A file that is not a JSON array, or breaks off, ends with an
 * `error` item saying after which element.
 */
export async function* jsonArrayElements(
  input: Readable,
): AsyncGenerator<{ index: number; value: unknown } | { index: number; error: string }> {
  const elements = input.pipe(streamArray.withParserAsStream({ streamValues: false }));
  input.once("error", (error) => elements.destroy(error));
  let index = 0;
  try {
    for await (const item of elements as AsyncIterable<{ key: number; value: unknown }>) {
      index = item.key + 1;
      yield { index, value: item.value };
    }
  } catch {
    yield {
      index: index + 1,
      error:
        index === 0
          ? "The file is not a JSON list of plays."
          : `The file is not valid JSON after entry ${index}; the rest of it was not read.`,
    };
  } finally {
    elements.destroy();
    input.destroy();
  }
}
