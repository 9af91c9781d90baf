import { Link } from "react-router";
import type { IconName } from "~/components/ui/icon";
import { Cover } from "~/features/artwork";
import { type MusicSection, searchHref } from "../query";
import type { MusicResult } from "../search.server";
import { Highlighted } from "./highlighted";

export const MUSIC_SECTION_ICONS: Record<MusicSection, IconName> = {
  artists: "mic-vocal",
  albums: "disc-3",
  tracks: "eighth-note",
};

/** Where a music result leads: the list of posts about it. */
export function musicItemHref(item: MusicResult, q: string): string {
  if (item.section === "artists") return searchHref({ q, type: "music", artist: item.name });
  if (item.section === "albums") {
    return searchHref({ q, type: "music", album: item.name, artist: item.artist });
  }
  return searchHref({ q, type: "music", track: item.name, artist: item.artist });
}

function friendsLine(item: MusicResult): string | null {
  if (item.friendCount === 0) return null;
  const others = item.friendCount - item.friends.length;
  const names = item.friends.join(", ");
  return others > 0 ? `${names} and ${others} more you follow` : `${names} posted about it`;
}

/** An artist, album or track people posted about: how many posts, which friends. */
export function MusicResultRow({
  item,
  q,
  terms,
}: {
  item: MusicResult;
  q: string;
  terms: readonly string[];
}) {
  const friends = friendsLine(item);
  return (
    <Link
      to={musicItemHref(item, q)}
      prefetch="intent"
      className="flex items-center gap-3 rounded-lg px-2 py-2.5 hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
    >
      {item.section === "artists" ? (
        <Cover artist={item.name} size={40} className="size-10 rounded-full" />
      ) : (
        <Cover
          artist={item.artist || item.name}
          title={item.name}
          size={40}
          className="size-10 rounded-md"
        />
      )}
      <span className="min-w-0 flex-1">
        <span className="block truncate font-medium">
          <Highlighted text={item.name} terms={terms} />
          {item.artist && item.section !== "artists" ? (
            <span className="font-normal text-muted-foreground">
              {" "}
              · <Highlighted text={item.artist} terms={terms} />
            </span>
          ) : null}
        </span>
        {friends ? (
          <span className="block truncate text-xs text-muted-foreground">{friends}</span>
        ) : null}
      </span>
      <span className="shrink-0 text-sm text-muted-foreground">
        {item.postCount} {item.postCount === 1 ? "post" : "posts"}
      </span>
    </Link>
  );
}
