/** Post constants shared by the database schema, the server and the browser. */

import type { Audience, PostKind } from "~/db/schema/enums";
import { IMAGE_MAX_BYTES } from "~/features/media";

export {
  AUDIENCES,
  type Audience,
  COMPOSER_KINDS,
  POST_KINDS,
  type PostKind,
} from "~/db/schema/enums";

/** Longest note a post may carry (characters). */
export const NOTE_MAX_LENGTH = 2000;
/** Longest title, artist or album name (characters). */
export const MUSIC_FIELD_MAX_LENGTH = 200;
/** Longest comment (characters). */
export const COMMENT_MAX_LENGTH = 1000;
/** Largest composer request body: the image with room for the other fields (bytes). */
export const UPLOAD_BODY_MAX_BYTES = IMAGE_MAX_BYTES + 256 * 1024;

export const KIND_LABELS: Record<PostKind, string> = {
  track: "Track",
  album: "Album",
  artist: "Artist",
  playlist: "Playlist",
  recap: "Recap",
};

export const AUDIENCE_LABELS: Record<Audience, string> = {
  everyone: "Everyone",
  followers: "Followers",
  only_me: "Only me",
};

export const MOODS = [
  { key: "happy", label: "Happy", emoji: "😊" },
  { key: "chill", label: "Chill", emoji: "😌" },
  { key: "energetic", label: "Energetic", emoji: "⚡" },
  { key: "melancholic", label: "Melancholic", emoji: "🌧️" },
  { key: "nostalgic", label: "Nostalgic", emoji: "📼" },
  { key: "romantic", label: "Romantic", emoji: "💘" },
  { key: "focused", label: "Focused", emoji: "🎧" },
  { key: "hyped", label: "Hyped", emoji: "🔥" },
  { key: "dreamy", label: "Dreamy", emoji: "🌙" },
  { key: "angry", label: "Fired up", emoji: "😤" },
] as const;
export type MoodKey = (typeof MOODS)[number]["key"];
export const MOOD_KEYS = MOODS.map((m) => m.key) as [MoodKey, ...MoodKey[]];

export function moodOf(key: string | null | undefined) {
  return MOODS.find((m) => m.key === key) ?? null;
}
