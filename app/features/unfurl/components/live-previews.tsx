import { useRevalidator } from "react-router";
import { useLiveEvents } from "~/features/realtime/live-provider";

/**
 * Fills in link previews live: when the preview of a post on this page is ready (the `unfurl`
 * event), or of one's own post, the page's data is loaded again, so the card shows the title
 * and artwork.
 */
export function LivePreviews() {
  const revalidator = useRevalidator();
  useLiveEvents((event) => {
    if (event.type !== "unfurl") return;
    // One's own new post may be on its way to the page (the answer to "Share" is loading).
    if (!event.data.isOwn && !document.getElementById(`post-${event.data.postId}`)) return;
    void revalidator.revalidate();
  });
  return null;
}
