import { z } from "zod";
import { LISTEN_TOKEN_NAME_MAX } from "./constants";

export { LISTEN_TOKEN_NAME_MAX, MAX_ACTIVE_LISTEN_TOKENS } from "./constants";

/** The "new token" form of Settings → Connected players. */
export const createListenTokenSchema = z.object({
  name: z
    .string({ error: "Give the token a name." })
    .transform((name) => name.replace(/\s+/g, " ").trim())
    .pipe(
      z
        .string()
        .min(1, "Give the token a name, such as the player that will use it.")
        .max(LISTEN_TOKEN_NAME_MAX, `Use at most ${LISTEN_TOKEN_NAME_MAX} characters.`)
        .refine((name) => !/\p{Cc}/u.test(name), "Use letters, digits and punctuation only."),
    ),
});

/** Revoking names a token by its id. */
export const revokeListenTokenSchema = z.object({
  tokenId: z.uuid("That token does not exist."),
});
