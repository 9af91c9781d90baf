import { z } from "zod";
import { BIO_MAX_LENGTH, DISPLAY_NAME_MAX_LENGTH, USERNAME_RULES } from "./constants";

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
});

export type ProfileInput = z.infer<typeof profileSchema>;

export const emailChangeSchema = z.object({
  newEmail: z.email("Enter a valid e-mail address.").max(254),
});
