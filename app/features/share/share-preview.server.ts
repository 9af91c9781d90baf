import { postArtUrl, postOpenGraphArtUrl } from "~/features/artwork";
import { getProfile } from "~/features/people/index.server";
import { KIND_LABELS } from "~/features/posts";
import { getPost } from "~/features/posts/index.server";
import { getEnv } from "~/lib/env.server";
import type { SharePreview } from "./share-preview";

const POST_PATH = /^\/post\/([^/?#]+)\/?$/;
const PROFILE_PATH = /^\/u\/([^/?#]+)(?:\/(?:followers|following|friends))?\/?$/;

function baseUrl(): string {
  return getEnv().BASE_URL.replace(/\/$/, "");
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * What the sign-in page may show of the page a signed-out visitor was sent from: a public post
 * or a profile, read as a signed-out viewer (so a followers-only or hidden post is never
 * previewed), else null. `path` is an already validated same-site path.
 */
export async function loadSharePreview(options: {
  path: string | null;
}): Promise<SharePreview | null> {
  const pathname = options.path?.split(/[?#]/)[0] ?? "";
  const postMatch = POST_PATH.exec(pathname);
  if (postMatch?.[1]) {
    const postId = decode(postMatch[1]);
    const post = postId ? await getPost({ viewerId: null, postId }) : null;
    if (post?.audience !== "everyone") return null;
    return {
      kind: "post",
      url: `${baseUrl()}/post/${post.id}`,
      title: post.title,
      artist: post.kind === "artist" ? null : post.artist,
      kindLabel: KIND_LABELS[post.kind],
      note: post.note.slice(0, 280),
      imageUrl: post.image ? `${baseUrl()}/media/${post.image.id}` : null,
      art: postArtUrl(post, post.preview?.art),
      artUrl: postOpenGraphArtUrl(post, post.preview?.art, baseUrl()),
      author: {
        displayName: post.author.displayName,
        username: post.author.username,
        avatarUrl: post.author.avatarUrl,
      },
    };
  }
  const profileMatch = PROFILE_PATH.exec(pathname);
  if (profileMatch?.[1]) {
    const username = decode(profileMatch[1]);
    const profile = username ? await getProfile({ viewerId: null, username }) : null;
    if (!profile) return null;
    return {
      kind: "profile",
      url: `${baseUrl()}/u/${profile.username}`,
      displayName: profile.displayName,
      username: profile.username,
      avatarUrl: profile.avatarUrl,
      bio: profile.bio.slice(0, 280),
      postCount: profile.postCount,
      followerCount: profile.followerCount,
    };
  }
  return null;
}
