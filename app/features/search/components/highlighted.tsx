import { highlight } from "../highlight";

/** `text` with the words that match the search marked; plain React text, never HTML. */
export function Highlighted({ text, terms }: { text: string; terms: readonly string[] }) {
  return (
    <>
      {highlight(text, terms).map((segment, i) =>
        segment.isMatch ? (
          <mark
            // biome-ignore lint/suspicious/noArrayIndexKey: segments never reorder
            key={i}
            className="rounded-sm bg-yellow-200 px-0.5 text-inherit dark:bg-yellow-500/40 dark:text-foreground"
          >
            {segment.text}
          </mark>
        ) : (
          segment.text
        ),
      )}
    </>
  );
}
