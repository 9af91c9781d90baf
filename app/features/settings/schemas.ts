import { z } from "zod";
import { JOURNEY_AUDIENCE_CHOICES } from "~/features/journey";
import { AUDIENCES } from "~/features/posts";
import {
  BIO_MAX_LENGTH,
  DISPLAY_NAME_MAX_LENGTH,
  FAVOURITE_MAX_LENGTH,
  FAVOURITES_MAX_COUNT,
  USERNAME_RULES,
} from "./constants";

/**
 * A list typed as text, one name per comma or line: trimmed, inner spaces collapsed, empty ones
 * dropped, repeats (whatever their case) kept once; at most FAVOURITES_MAX_COUNT names of at
 * most FAVOURITE_MAX_LENGTH characters.
 */
function favouritesList(what: string) {
  return z
    .string()
    .default("")
    .transform((text) => {
      const seen = new Set<string>();
      const names: string[] = [];
      for (const part of text.split(/[,\n]/)) {
        const name = part.replace(/\s+/g, " ").trim();
        if (!name || seen.has(name.toLowerCase())) continue;
        seen.add(name.toLowerCase());
        names.push(name);
      }
      return names;
    })
    .refine((names) => names.length <= FAVOURITES_MAX_COUNT, {
      message: `List at most ${FAVOURITES_MAX_COUNT} ${what}.`,
    })
    .refine((names) => names.every((name) => name.length <= FAVOURITE_MAX_LENGTH), {
      message: `Keep each of your ${what} under ${FAVOURITE_MAX_LENGTH} characters.`,
    });
}

/** The profile form (server side; the browser uses the same limits from constants.ts). */
export const profileSchema = z.object({
  displayName: z
    .string()
    .trim()
    .min(1, "Enter a display name.")
    .max(DISPLAY_NAME_MAX_LENGTH, `Use at most ${DISPLAY_NAME_MAX_LENGTH} characters.`),
  username: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.]{3,30}$/, USERNAME_RULES),
  bio: z
    .string()
    .max(BIO_MAX_LENGTH, `Your bio can be at most ${BIO_MAX_LENGTH} characters.`)
    .default(""),
  favouriteArtists: favouritesList("artists"),
  favouriteGenres: favouritesList("genres"),
});

export type ProfileInput = z.infer<typeof profileSchema>;

export const emailChangeSchema = z.object({
  newEmail: z.email("Enter a valid e-mail address.").max(254),
});

/** The privacy form. Checkboxes arrive as "on" when ticked and are missing otherwise. */
export const privacySchema = z.object({
  defaultAudience: z.enum(AUDIENCES, { error: "Choose who sees your new posts." }),
  requiresFollowApproval: z
    .enum(["anyone", "approve"], { error: "Choose who may follow you." })
    .transform((v) => v === "approve"),
  isDiscoverable: z
    .literal("on")
    .optional()
    .transform((v) => v === "on"),
});

export type PrivacyInput = z.output<typeof privacySchema>;

/** The most artists a person may hide from their journey. */
export const HIDDEN_ARTISTS_MAX = 50;

/**
 * The Journey part of the privacy page. Hidden artists arrive as repeated `hiddenArtist` fields
 * (checkboxes of the ones already hidden, kept when ticked) plus `addArtist`, a name typed or
 * picked from the person's top artists.
 */
export const journeyPrivacySchema = z.object({
  journeyAudience: z.enum(JOURNEY_AUDIENCE_CHOICES, { error: "Choose who sees your journey." }),
  hiddenArtists: z
    .array(z.string().trim().min(1).max(512, "Artist names can be at most 512 characters."))
    .max(HIDDEN_ARTISTS_MAX, `Hide at most ${HIDDEN_ARTISTS_MAX} artists.`)
    .default([]),
  addArtist: z.string().trim().max(512, "Artist names can be at most 512 characters.").default(""),
  nowPlayingPaused: z
    .literal("on")
    .optional()
    .transform((v) => v === "on"),
  recapsEnabled: z
    .literal("on")
    .optional()
    .transform((v) => v === "on"),
});

/** The "Remove" button of one hidden artist: its key. */
export const unhideArtistSchema = z.object({
  artistKey: z.string().trim().min(1, "Choose an artist to stop hiding.").max(512),
});

export type JourneyPrivacyInput = z.output<typeof journeyPrivacySchema>;
