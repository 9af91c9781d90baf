import { useEffect, useState } from "react";
import { useFetchers, useNavigation, useRevalidator } from "react-router";
import { useLiveEvents } from "~/features/realtime";

/**
 * Fills in link previews live: when the preview of a post on this page is ready (the `unfurl`
 * event), or of one's own post, the page's data is loaded again, so the card shows the title
 * and artwork.
 *
 * Not while a navigation or a form is under way: the answer to "Share" (a redirect carrying its
 * "Shared" toast in a flash cookie) may be loading, and a reload started meanwhile would
 * replace that navigation and lose the toast. The reload waits until the page is idle.
 */
export function LivePreviews() {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  const [due, setDue] = useState(false);
  useLiveEvents((event) => {
    if (event.type !== "unfurl") return;
    // One's own new post may be on its way to the page (the answer to "Share" is loading).
    if (!event.data.isOwn && !document.getElementById(`post-${event.data.postId}`)) return;
    setDue(true);
  });
  const busy =
    navigation.state !== "idle" ||
    revalidator.state !== "idle" ||
    fetchers.some((fetcher) => fetcher.state !== "idle");
  useEffect(() => {
    if (!due || busy) return;
    setDue(false);
    void revalidator.revalidate();
  }, [due, busy, revalidator]);
  return null;
}
