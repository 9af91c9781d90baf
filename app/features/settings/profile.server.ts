import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "~/core/errors";
import { queueFederationEvent } from "~/core/federation-events.server";
import { type DbOrTx, getDb } from "~/db/client.server";
import { media, posts, profiles, user } from "~/db/schema";
import { isUsernameAvailable, USERNAME_PATTERN } from "~/features/auth/index.server";
import { type ProcessedImage, processImage, storeImage } from "~/features/media/index.server";
import { loadSharp } from "~/lib/lazy-module.server";
import {
  AVATAR_SIDE,
  FAVOURITE_MAX_LENGTH,
  FAVOURITES_MAX_COUNT,
  USERNAME_RULES,
  USERNAME_TAKEN,
} from "./constants";
import type { ProfileInput } from "./schemas";

export interface ProfileSettings {
  username: string;
  displayName: string;
  bio: string;
  avatarUrl: string | null;
  favouriteArtists: string[];
  favouriteGenres: string[];
}

/** What the profile form starts from. */
export async function getProfileSettings(options: { userId: string }): Promise<ProfileSettings> {
  const [row] = await getDb()
    .select({
      username: profiles.username,
      displayName: profiles.displayName,
      bio: profiles.bio,
      avatarUrl: profiles.avatarUrl,
      favouriteArtists: profiles.favouriteArtists,
      favouriteGenres: profiles.favouriteGenres,
    })
    .from(profiles)
    .where(eq(profiles.userId, options.userId));
  if (!row) throw new AppError("not_found", "Your profile could not be found.");
  return { ...row, displayName: row.displayName ?? "" };
}

export type UsernameCheck = { isAvailable: true } | { isAvailable: false; reason: string };

/**
 * Whether the viewer may take `username`: it must follow the pattern and be free
 * (case-insensitive). Their own name, in any case, is always theirs to keep.
 */
export async function checkUsername(options: {
  viewerId: string;
  username: string;
}): Promise<UsernameCheck> {
  const username = options.username.trim();
  if (!USERNAME_PATTERN.test(username)) return { isAvailable: false, reason: USERNAME_RULES };
  const [own] = await getDb()
    .select({ username: profiles.username })
    .from(profiles)
    .where(eq(profiles.userId, options.viewerId));
  if (own && own.username.toLowerCase() === username.toLowerCase()) return { isAvailable: true };
  return (await isUsernameAvailable(username))
    ? { isAvailable: true }
    : { isAvailable: false, reason: USERNAME_TAKEN };
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/**
 * Saves display name, username, bio and (when given) favourite artists and genres on the
 * profile and mirrors name and username onto the auth user, in one transaction. A username
 * someone else holds (whatever its case) is refused with `conflict`, also when two people race
 * for it. Favourites are checked again here (count and length), whoever calls.
 */
export async function updateProfile(
  options: { userId: string } & Omit<ProfileInput, "favouriteArtists" | "favouriteGenres"> &
    Partial<Pick<ProfileInput, "favouriteArtists" | "favouriteGenres">>,
): Promise<ProfileSettings> {
  for (const list of [options.favouriteArtists, options.favouriteGenres]) {
    if (
      list &&
      (list.length > FAVOURITES_MAX_COUNT ||
        list.some((name) => name.length > FAVOURITE_MAX_LENGTH))
    ) {
      throw new AppError(
        "invalid",
        `List at most ${FAVOURITES_MAX_COUNT} names of at most ${FAVOURITE_MAX_LENGTH} characters.`,
      );
    }
  }
  const check = await checkUsername({ viewerId: options.userId, username: options.username });
  if (!check.isAvailable) throw new AppError("conflict", check.reason);
  const bio = options.bio.replace(/\r\n?/g, "\n").trim();
  try {
    return await getDb().transaction(async (tx) => {
      const [row] = await tx
        .update(profiles)
        .set({
          displayName: options.displayName,
          username: options.username,
          bio,
          favouriteArtists: options.favouriteArtists,
          favouriteGenres: options.favouriteGenres,
        })
        .where(eq(profiles.userId, options.userId))
        .returning({
          username: profiles.username,
          displayName: profiles.displayName,
          bio: profiles.bio,
          avatarUrl: profiles.avatarUrl,
          favouriteArtists: profiles.favouriteArtists,
          favouriteGenres: profiles.favouriteGenres,
        });
      if (!row) throw new AppError("not_found", "Your profile could not be found.");
      await tx
        .update(user)
        .set({ name: options.displayName, username: options.username })
        .where(eq(user.id, options.userId));
      await queueFederationEvent(tx, { type: "profileUpdated", userId: options.userId });
      return { ...row, displayName: row.displayName ?? "" };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("conflict", USERNAME_TAKEN);
    throw error;
  }
}

/** `processImage`'s output cut to a centred square of AVATAR_SIDE pixels (metadata-free WebP). */
async function squareAvatar(image: ProcessedImage): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(image.bytes)
    .resize({ width: AVATAR_SIDE, height: AVATAR_SIDE, fit: "cover", position: "centre" })
    .webp({ quality: 82 })
    .toBuffer({ resolveWithObject: true });
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return {
    bytes,
    width: info.width,
    height: info.height,
    contentType: "image/webp",
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

const MEDIA_URL = /^\/media\/([0-9a-f-]{36})$/i;

/**
 * Replaces the person's picture: the upload is checked and re-encoded by `processImage`
 * (a non-image is refused with its message), cropped to a centred square, stored, and the
 * previous picture they uploaded is deleted. Returns the new avatar URL.
 */
export async function setAvatar(options: { userId: string; file: Uint8Array }): Promise<string> {
  const image = await squareAvatar(await processImage(options.file));
  return getDb().transaction(async (tx) => {
    const [current] = await tx
      .select({ avatarUrl: profiles.avatarUrl })
      .from(profiles)
      .where(eq(profiles.userId, options.userId));
    if (!current) throw new AppError("not_found", "Your profile could not be found.");
    const id = await storeImage(tx, { ownerId: options.userId, image });
    const url = `/media/${id}`;
    await tx.update(profiles).set({ avatarUrl: url }).where(eq(profiles.userId, options.userId));
    await tx.update(user).set({ image: url }).where(eq(user.id, options.userId));
    await deleteOwnMedia(tx, options.userId, current.avatarUrl);
    await queueFederationEvent(tx, { type: "profileUpdated", userId: options.userId });
    return url;
  });
}

/** Removes the person's picture (they get their initial again). */
export async function removeAvatar(options: { userId: string }): Promise<void> {
  await getDb().transaction(async (tx) => {
    const [current] = await tx
      .select({ avatarUrl: profiles.avatarUrl })
      .from(profiles)
      .where(eq(profiles.userId, options.userId));
    await tx.update(profiles).set({ avatarUrl: null }).where(eq(profiles.userId, options.userId));
    await tx.update(user).set({ image: null }).where(eq(user.id, options.userId));
    await deleteOwnMedia(tx, options.userId, current?.avatarUrl ?? null);
    await queueFederationEvent(tx, { type: "profileUpdated", userId: options.userId });
  });
}

/** Deletes an old avatar image if the person uploaded it and no post uses it. */
async function deleteOwnMedia(tx: DbOrTx, userId: string, url: string | null): Promise<void> {
  const id = url?.match(MEDIA_URL)?.[1];
  if (!id) return;
  await tx
    .delete(media)
    .where(
      and(
        eq(media.id, id),
        eq(media.ownerId, userId),
        sql`not exists (select 1 from ${posts} where ${posts.mediaId} = ${media.id})`,
      ),
    );
}
