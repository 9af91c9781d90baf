import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { loader } from "../../routes/art";
import { COVER_SEED_PATTERN, coverSeed, coverSvg, coverUrl } from "./cover";

describe("generated artwork", () => {
  it("is the same for the same music, whatever the spelling, and differs between records", () => {
    const seed = coverSeed("Radiohead", "Weird Fishes - Remastered 2011");
    expect(seed).toMatch(COVER_SEED_PATTERN);
    expect(coverSeed("radiohead", "Weird Fishes")).toBe(seed);
    expect(coverSvg(seed)).toBe(coverSvg(seed));
    const others = new Set(
      ["In Rainbows", "OK Computer", "Kid A", "Amnesiac", "The Bends"].map((t) =>
        coverSeed("Radiohead", t),
      ),
    );
    expect(others.size).toBe(5);
    expect(coverSvg(coverSeed("Radiohead", "Kid A"))).not.toBe(coverSvg(seed));
    // The names never travel in the URL.
    expect(coverUrl("Björk", "Jóga")).toMatch(/^\/art\/[0-9a-f]{16}\.webp$/);
  });

  it("is a plain SVG of shapes: no script, no text, no outside reference", () => {
    for (const artist of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
      const svg = coverSvg(coverSeed(artist));
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">')).toBe(
        true,
      );
      expect(svg).not.toMatch(/<script|<text|href=|on\w+=|NaN|undefined/);
    }
    expect(() => coverSvg("../etc/passwd")).toThrow();
  });

  it("is served as a cacheable image, and anything else under /art is a 404", async () => {
    const seed = coverSeed("Low", "Words");
    const ok = await loader({ params: { file: `${seed}.svg` } } as Parameters<typeof loader>[0]);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Content-Type")).toBe("image/svg+xml; charset=utf-8");
    expect(ok.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(ok.headers.get("Content-Security-Policy")).toContain("sandbox");
    expect(await ok.text()).toBe(coverSvg(seed));
    for (const file of [seed, `${seed}.jpg`, "x.svg", `${seed}0.svg`, "<script>.svg"]) {
      const missing = await loader({ params: { file } } as Parameters<typeof loader>[0]);
      expect(missing.status).toBe(404);
    }
  });

  it("is also served as a PNG (for Open Graph previews), the same picture", async () => {
    const seed = coverSeed("Low", "Words");
    const png = await loader({ params: { file: `${seed}.png` } } as Parameters<typeof loader>[0]);
    expect(png.status).toBe(200);
    expect(png.headers.get("Content-Type")).toBe("image/png");
    const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 600, 600]);
  });

  it("is served as the WebP pages show, the same picture, rendered once for many requests", async () => {
    const seed = coverSeed("Low", "Words");
    const request = () =>
      loader({ params: { file: `${seed}.webp` } } as Parameters<typeof loader>[0]);
    const webp = await request();
    expect(webp.status).toBe(200);
    expect(webp.headers.get("Content-Type")).toBe("image/webp");
    expect(webp.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const bytes = Buffer.from(await webp.arrayBuffer());
    expect(Number(webp.headers.get("Content-Length"))).toBe(bytes.byteLength);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 256, 256]);
    // The same picture as the SVG: its mean colour is that of the SVG rendered the same way.
    const stats = async (input: Buffer) =>
      (await sharp(input).resize(16, 16).removeAlpha().raw().toBuffer()).reduce((a, b) => a + b, 0);
    const reference = await sharp(Buffer.from(coverSvg(seed)))
      .resize(256, 256)
      .webp()
      .toBuffer();
    expect(
      Math.abs((await stats(bytes)) - (await stats(reference))) / (await stats(reference)),
    ).toBeLessThan(0.02);
    const again = Buffer.from(await (await request()).arrayBuffer());
    expect(again.equals(bytes)).toBe(true);
    for (const file of [`${seed}0.webp`, "abc.webp", `${seed.toUpperCase()}.webp`]) {
      const missing = await loader({ params: { file } } as Parameters<typeof loader>[0]);
      expect(missing.status).toBe(404);
    }
  });
});
