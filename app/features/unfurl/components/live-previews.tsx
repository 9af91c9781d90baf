import { useRevalidator } from "react-router";
import { useLiveEvents } from "~/features/realtime/live-provider";

/**
 * Fills in link previews live: when the preview of a post on this page is ready (the `unfurl`
 * event), the page's data is loaded again, so its card shows the title and artwork.
 */
export function LivePreviews() {
  const revalidator = useRevalidator();
  useLiveEvents((event) => {
    if (event.type !== "unfurl") return;
    if (!document.getElementById(`post-${event.data.postId}`)) return;
    void revalidator.revalidate();
  });
  return null;
}
