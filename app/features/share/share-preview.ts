import type { MetaDescriptor } from "react-router";

/** A public post or profile as the sign-in page previews it to a signed-out visitor. */
export type SharePreview =
  | {
      kind: "post";
      url: string;
      title: string;
      artist: string | null;
      kindLabel: string;
      note: string;
      imageUrl: string | null;
      /** The music's artwork: `art` to show here, `artUrl` (absolute) for Open Graph. */
      art: string;
      artUrl: string;
      author: { displayName: string; username: string; avatarUrl: string | null };
    }
  | {
      kind: "profile";
      url: string;
      displayName: string;
      username: string;
      avatarUrl: string | null;
      bio: string;
      postCount: number;
      followerCount: number;
    };

/** The preview's headline: "Ana shared Sour Times by Portishead". */
export function sharePreviewTitle(preview: SharePreview): string {
  if (preview.kind === "post") {
    const byline = preview.artist ? ` by ${preview.artist}` : "";
    return `${preview.author.displayName} shared ${preview.title}${byline}`;
  }
  return `${preview.displayName} (@${preview.username}) on Soundtrail`;
}

function sharePreviewDescription(preview: SharePreview): string {
  if (preview.kind === "post") {
    return (
      preview.note.slice(0, 200) ||
      `${preview.kindLabel} shared by ${preview.author.displayName} (@${preview.author.username}) on Soundtrail.`
    );
  }
  return (
    preview.bio.slice(0, 200) || `${preview.displayName} shares their music journey on Soundtrail.`
  );
}

/**
 * Open Graph and Twitter tags for a shared post or profile: link unfurlers follow the redirect
 * to sign-in and read these there.
 */
export function sharePreviewMeta(preview: SharePreview): MetaDescriptor[] {
  const title = sharePreviewTitle(preview);
  const description = sharePreviewDescription(preview);
  const image = preview.kind === "post" ? (preview.imageUrl ?? preview.artUrl) : preview.avatarUrl;
  const isLarge = preview.kind === "post" ? preview.imageUrl !== null : false;
  const type = preview.kind === "profile" ? "profile" : "music.song";
  return [
    { tagName: "link", rel: "canonical", href: preview.url },
    { property: "og:type", content: type },
    { property: "og:site_name", content: "Soundtrail" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: preview.url },
    ...(image ? [{ property: "og:image", content: image }] : []),
    { name: "twitter:card", content: isLarge ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    ...(image ? [{ name: "twitter:image", content: image }] : []),
  ];
}
