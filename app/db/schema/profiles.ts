import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { user } from "./auth";

/** Spec §3 profiles: one per account, created together with it. */
export const profiles = pgTable(
  "profiles",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    email: text("email"),
    displayName: text("display_name"),
    username: text("username").notNull(),
    avatarUrl: text("avatar_url"),
    bio: text("bio").notNull().default(""),
    roles: text("roles").array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Who new posts are for unless the person picks otherwise in the composer. */
    defaultAudience: text("default_audience", { enum: ["everyone", "followers", "only_me"] })
      .notNull()
      .default("everyone"),
    /** New followers must be approved (a follow request) instead of following at once. */
    requiresFollowApproval: boolean("requires_follow_approval").notNull().default(false),
    /** Found by others in people search and offered in suggestions. */
    isDiscoverable: boolean("is_discoverable").notNull().default(true),
    /** Plain text, shown on the profile; counts and lengths bounded in settings/constants.ts. */
    favouriteArtists: text("favourite_artists").array().notNull().default(sql`'{}'::text[]`),
    favouriteGenres: text("favourite_genres").array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [
    check(
      "profiles_default_audience_check",
      sql`${t.defaultAudience} in ('everyone', 'followers', 'only_me')`,
    ),
    uniqueIndex("profiles_username_lower_idx").on(sql`lower(${t.username})`),
    index("profiles_created_at_idx").on(t.createdAt),
  ],
);
