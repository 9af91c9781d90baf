/** Settings constants shared by the server and the browser (no imports). */

/** Longest bio (characters); the form counts down to it. */
export const BIO_MAX_LENGTH = 300;
/** Longest display name (characters). */
export const DISPLAY_NAME_MAX_LENGTH = 60;
/** Side of a stored avatar, in pixels: a square, centre-cropped. */
export const AVATAR_SIDE = 512;

/** Most favourite artists, and most favourite genres, a profile shows. */
export const FAVOURITES_MAX_COUNT = 10;
/** Longest favourite artist or genre name (characters). */
export const FAVOURITE_MAX_LENGTH = 60;

/** Who may see new posts unless the person picks otherwise in the composer. */
export const DEFAULT_AUDIENCE_HINTS = {
  everyone: "Anyone, signed in or not.",
  followers: "Only the people who follow you.",
  only_me: "Only you: a private music diary.",
} as const;

/** How long a prepared data archive stays downloadable (days). */
export const EXPORT_KEEP_DAYS = 7;

export const USERNAME_RULES = "Use 3–30 letters, digits, “_” or “.”.";
export const USERNAME_TAKEN = "That username is taken. Try another one.";

/** The sections of /settings, in menu order. */
export const SETTINGS_SECTIONS = [
  { slug: "profile", label: "Profile", description: "Your name, username, bio and picture" },
  {
    slug: "account",
    label: "Account",
    description: "E-mail, phone, ways to sign in, deleting your account",
  },
  {
    slug: "security",
    label: "Security",
    description: "Password, two-step sign-in, backup codes, sessions",
  },
  { slug: "notifications", label: "Notifications", description: "What you hear about, and how" },
  {
    slug: "privacy",
    label: "Privacy",
    description: "Who sees your posts, who may follow you, blocked people",
  },
  {
    slug: "listening",
    label: "Listening history",
    description: "Import your plays from Spotify, Last.fm and ListenBrainz",
  },
  {
    slug: "scrobbling",
    label: "Connected players",
    description: "Tokens that let your music players send what you play",
  },
  { slug: "data", label: "Your data", description: "Download everything you created" },
  { slug: "appearance", label: "Appearance", description: "Light, dark or like your device" },
] as const;

export type SettingsSectionSlug = (typeof SETTINGS_SECTIONS)[number]["slug"];
