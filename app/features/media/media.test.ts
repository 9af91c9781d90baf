import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { followUser } from "~/features/follows/index.server";
import { getPost } from "~/features/posts/index.server";
import { createTestUser } from "../../../tests/support/factories";
import { createTestPost } from "../../../tests/support/social-factories";
import { withTestDatabase } from "../../../tests/support/test-database";
import {
  getMediaForViewer,
  IMAGE_MAX_SIDE,
  IMAGE_TOO_LARGE,
  NOT_AN_IMAGE,
  processImage,
} from "./media.server";

withTestDatabase();

/** A 3000×2000 JPEG with EXIF orientation 6 (rotate 90°) and a camera name. */
async function cameraJpeg(): Promise<Uint8Array> {
  const buffer = await sharp({
    create: { width: 3000, height: 2000, channels: 3, background: { r: 200, g: 40, b: 90 } },
  })
    .jpeg()
    .withMetadata({ orientation: 6, exif: { IFD0: { Make: "SecretCam", Model: "X100" } } })
    .toBuffer();
  return new Uint8Array(buffer);
}

describe("processImage", () => {
  it("re-encodes a real photo as WebP, upright, at most 1600 px, with no metadata", async () => {
    const input = await cameraJpeg();
    const inputMeta = await sharp(input).metadata();
    expect(inputMeta.orientation).toBe(6);
    expect(inputMeta.exif).toBeDefined();

    const out = await processImage(input);
    expect(out.contentType).toBe("image/webp");
    // Orientation 6 means the stored 3000×2000 picture is shown 2000×3000: portrait.
    expect([out.width, out.height]).toEqual([
      Math.round((2000 * IMAGE_MAX_SIDE) / 3000),
      IMAGE_MAX_SIDE,
    ]);
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(Buffer.from(out.bytes).includes("SecretCam")).toBe(false);
    expect(out.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps small images at their size", async () => {
    const png = await sharp({
      create: { width: 40, height: 30, channels: 4, background: "#15803d" },
    })
      .png()
      .toBuffer();
    const out = await processImage(new Uint8Array(png));
    expect([out.width, out.height]).toEqual([40, 30]);
  });

  it.each([
    ["a text file", new TextEncoder().encode("hello, I am not a picture")],
    ["an HTML file named .jpg", new TextEncoder().encode("<img src=x onerror=alert(1)>")],
    ["a PDF", new TextEncoder().encode("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n")],
    [
      "an SVG",
      new TextEncoder().encode(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      ),
    ],
    ["an empty file", new Uint8Array()],
  ])("refuses %s with a clear message", async (_name, bytes) => {
    await expect(processImage(bytes)).rejects.toMatchObject({
      code: "unsupported_media",
      message: NOT_AN_IMAGE,
    });
  });

  it("refuses files over 10 MB", async () => {
    await expect(processImage(new Uint8Array(10 * 1024 * 1024 + 1))).rejects.toMatchObject({
      code: "too_large",
      message: IMAGE_TOO_LARGE,
    });
  });
});

describe("serving images", () => {
  it("follows the post's visibility; public images may be cached by anyone", async () => {
    const ana = await createTestUser();
    const fan = await createTestUser();
    const stranger = await createTestUser();
    await followUser({ viewerId: fan.id, targetId: ana.id });
    const image = await processImage(await cameraJpeg());
    const publicPost = await createTestPost(ana.id, { audience: "everyone" }, image);
    const privatePost = await createTestPost(ana.id, { audience: "followers" }, image);
    const publicImage = (await getPost({ viewerId: null, postId: publicPost }))?.image;
    const privateImage = (await getPost({ viewerId: ana.id, postId: privatePost }))?.image;
    expect(publicImage?.id).toBeDefined();
    expect(privateImage?.id).toBeDefined();
    const served = await getMediaForViewer({ viewerId: null, mediaId: publicImage?.id ?? "" });
    expect(served?.isPublic).toBe(true);
    expect(served?.etag).toBe(`"${image.sha256}"`);
    expect(Buffer.from(served?.bytes ?? []).equals(Buffer.from(image.bytes))).toBe(true);
    const id = privateImage?.id ?? "";
    expect(await getMediaForViewer({ viewerId: null, mediaId: id })).toBeNull();
    expect(await getMediaForViewer({ viewerId: stranger.id, mediaId: id })).toBeNull();
    expect((await getMediaForViewer({ viewerId: fan.id, mediaId: id }))?.isPublic).toBe(false);
    expect(await getMediaForViewer({ viewerId: ana.id, mediaId: id })).not.toBeNull();
    expect(await getMediaForViewer({ viewerId: ana.id, mediaId: "../etc/passwd" })).toBeNull();
  });
});
