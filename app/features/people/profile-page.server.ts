import { getVisibleNowPlaying, type NowPlayingTrack } from "~/features/journey/index.server";
import type { PostPage } from "~/features/posts/index.server";
import { listProfilePosts } from "~/features/posts/index.server";
import { getProfile, listTopArtists, type ProfileData, type TopArtist } from "./people.server";

export interface ProfilePageData {
  profile: ProfileData;
  topArtists: TopArtist[];
  page: PostPage;
  /** What their player says is playing, when the viewer may see it. */
  nowPlaying: NowPlayingTrack | null;
}

/** Everything a profile page shows, as the viewer may see it; null for an unknown username. */
export async function loadProfilePage(options: {
  viewerId: string | null;
  username: string;
  cursor?: string | null;
}): Promise<ProfilePageData | null> {
  const profile = await getProfile({ viewerId: options.viewerId, username: options.username });
  if (!profile) return null;
  const [topArtists, page, nowPlaying] = await Promise.all([
    listTopArtists({ viewerId: options.viewerId, userId: profile.id }),
    listProfilePosts({ viewerId: options.viewerId, authorId: profile.id, cursor: options.cursor }),
    getVisibleNowPlaying({ viewerId: options.viewerId, userId: profile.id }),
  ]);
  return { profile, topArtists, page, nowPlaying };
}
