import { useEffect, useState } from "react";
import { useLiveEvents } from "~/features/realtime";

export interface PostCounts {
  likeCount: number;
  commentCount: number;
  liked: boolean;
}

/**
 * A card's like and comment counts, moved by the live stream ("counts" events, sent to the
 * author and the followers whose timeline holds the post) when someone else likes or comments.
 * A new page load's counts replace them.
 */
export function useLiveCounts(postId: string, fromServer: PostCounts): PostCounts {
  const [counts, setCounts] = useState(fromServer);
  const { likeCount, commentCount, liked } = fromServer;
  useEffect(() => setCounts({ likeCount, commentCount, liked }), [likeCount, commentCount, liked]);
  useLiveEvents((event) => {
    if (event.type !== "counts" || event.data.postId !== postId) return;
    const { likeCount: l, commentCount: c, liked: mine } = event.data;
    setCounts((current) =>
      current.likeCount === l && current.commentCount === c && current.liked === mine
        ? current
        : { likeCount: l, commentCount: c, liked: mine },
    );
  });
  return counts;
}
