import { z } from "zod";
import {
  AUDIENCES,
  COMMENT_MAX_LENGTH,
  MOOD_KEYS,
  MUSIC_FIELD_MAX_LENGTH,
  NOTE_MAX_LENGTH,
  POST_KINDS,
} from "./constants";

const optionalText = (max: number, label: string) =>
  z
    .string()
    .trim()
    .max(max, `Keep the ${label} under ${max} characters.`)
    .optional()
    .transform((v) => (v ? v : undefined));

/** What the composer (and the edit form) sends; the same rules run in the browser and on the server. */
export const postInputSchema = z
  .object({
    kind: z.enum(POST_KINDS, { error: "Choose what your post is about." }),
    title: z
      .string({ error: "Give it a title." })
      .trim()
      .min(1, "Give it a title.")
      .max(MUSIC_FIELD_MAX_LENGTH, `Keep the title under ${MUSIC_FIELD_MAX_LENGTH} characters.`),
    artist: optionalText(MUSIC_FIELD_MAX_LENGTH, "artist"),
    album: optionalText(MUSIC_FIELD_MAX_LENGTH, "album"),
    linkUrl: z
      .string()
      .trim()
      .max(500, "That link is too long.")
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^https?:\/\/[^\s]+$/i.test(v), {
        message: "Paste a full link starting with https://",
      })
      .refine(
        (v) => {
          if (v === undefined) return true;
          try {
            const url = new URL(v);
            return url.hostname.includes(".") && !url.username && !url.password;
          } catch {
            return false;
          }
        },
        { message: "Paste a full link starting with https://" },
      ),
    note: z
      .string()
      .max(
        NOTE_MAX_LENGTH,
        `Keep the note under ${NOTE_MAX_LENGTH.toLocaleString("en")} characters.`,
      )
      .optional()
      .transform((v) => (v ?? "").trim()),
    mood: z
      .union([z.enum(MOOD_KEYS), z.literal("")], { error: "Choose a mood from the list." })
      .optional()
      .transform((v) => (v ? v : undefined)),
    // Left out, a new post gets the author's default audience (privacy settings); an edit
    // keeps the post's own.
    audience: z.enum(AUDIENCES, { error: "Choose who can see this post." }).optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.kind === "track" || value.kind === "album") && !value.artist) {
      ctx.addIssue({
        code: "custom",
        path: ["artist"],
        message: `Who made this ${value.kind}? Add the artist.`,
      });
    }
  })
  .transform((value) => ({
    ...value,
    // One column answers "posts about artist X"; an album post's title is its album.
    artist: value.kind === "artist" ? value.title : value.artist,
    album: value.kind === "album" ? value.title : value.kind === "track" ? value.album : undefined,
  }));

export type PostInput = z.output<typeof postInputSchema>;

export const commentInputSchema = z.object({
  content: z
    .string({ error: "Write something first." })
    .trim()
    .min(1, "Write something first.")
    .max(
      COMMENT_MAX_LENGTH,
      `Keep comments under ${COMMENT_MAX_LENGTH.toLocaleString("en")} characters.`,
    ),
});
