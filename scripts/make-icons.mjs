// Draws the app icon (green rounded square with white equaliser bars) into public/ as PNG and
// ICO. Run once when the icon changes: node scripts/make-icons.mjs
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

const GREEN = [21, 128, 61];
const WHITE = [255, 255, 255];

function pixel(size, x, y) {
  const r = size * 0.22;
  const cx = Math.min(Math.max(x, r), size - r);
  const cy = Math.min(Math.max(y, r), size - r);
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return null;
  const bars = [0.35, 0.7, 0.5, 0.85, 0.45];
  const barW = size * 0.09;
  const gap = size * 0.045;
  const total = bars.length * barW + (bars.length - 1) * gap;
  const left = (size - total) / 2;
  for (let i = 0; i < bars.length; i++) {
    const bx = left + i * (barW + gap);
    const h = bars[i] * size * 0.6;
    if (x >= bx && x < bx + barW && Math.abs(y - size / 2) < h / 2) return WHITE;
  }
  return GREEN;
}

function crc32(buf) {
  let c;
  let crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function png(size) {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const p = pixel(size, x + 0.5, y + 0.5);
      const o = y * (size * 4 + 1) + 1 + x * 4;
      if (p) {
        raw[o] = p[0];
        raw[o + 1] = p[1];
        raw[o + 2] = p[2];
        raw[o + 3] = 255;
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

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

writeFileSync("public/icon-192.png", png(192));
writeFileSync("public/icon-512.png", png(512));
writeFileSync("public/favicon.ico", ico(png(32), 32));
console.log("icons written to public/");
