// Renders the app icons into public/ with sharp from the SVG logo (public/favicon.svg): the
// 192 and 512 px PNGs the web app manifest and iOS use, a maskable 512 px PNG (the bars inside
// the central safe zone, the green to the edges, so a launcher may cut any shape), and the
// 32 px favicon.ico. Run when the logo changes and commit the files: node scripts/make-icons.mjs
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";

const root = path.resolve(import.meta.dirname, "..");
const publicDir = path.join(root, "public");
const logo = readFileSync(path.join(publicDir, "favicon.svg"), "utf8");

/** The logo's bars on a full-bleed square, scaled to 60% so they sit inside the 80% safe circle. */
function maskableSvg() {
  const bars = logo.match(/<g fill="#fff">.*<\/g>/)?.[0];
  if (!bars) throw new Error('favicon.svg: expected the bars in <g fill="#fff">');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="#15803d"/><g transform="translate(16 16) scale(0.6) translate(-16 -16)">${bars}</g></svg>`;
}

function render(svg, size) {
  return sharp(Buffer.from(svg), { density: Math.ceil((72 * size) / 32) })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** A one-image ICO holding a PNG (every current browser reads PNG-in-ICO). */
function ico(pngData, size) {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header[6] = size;
  header[7] = size;
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(pngData.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, pngData]);
}

writeFileSync(path.join(publicDir, "icon-192.png"), await render(logo, 192));
writeFileSync(path.join(publicDir, "icon-512.png"), await render(logo, 512));
writeFileSync(path.join(publicDir, "icon-maskable-512.png"), await render(maskableSvg(), 512));
writeFileSync(path.join(publicDir, "favicon.ico"), ico(await render(logo, 32), 32));
console.log("icons written to public/");
