// Builds zip fixtures for the importers' tests (a small writer of our own, independent of the
// streaming one the export uses, so each checks the other).
import { crc32, deflateRawSync } from "node:zlib";

export interface ZipEntry {
  /** Path inside the archive, with "/" between folders. */
  name: string;
  data: Uint8Array;
  /** Deflate it (text); already-compressed images are stored as they are. */
  compress: boolean;
}

/** MS-DOS time and date of `at` (what zip headers carry), in UTC. */
function dosDateTime(at: Date): { time: number; date: number } {
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}

/**
 * A zip archive (PKWARE APPNOTE: local headers, central directory, end record; UTF-8 names;
 * deflate or store). No zip64: an export stays far below 4 GiB and 65,535 entries, and this
 * throws rather than write a broken archive if one ever does not.
 */
export function createZip(entries: readonly ZipEntry[], at = new Date()): Uint8Array {
  if (entries.length > 0xffff) throw new Error("too many entries for a zip without zip64");
  const { time, date } = dosDateTime(at);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const body = entry.compress ? deflateRawSync(entry.data) : Buffer.from(entry.data);
    const crc = crc32(entry.data);
    const method = entry.compress ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(entry.data.byteLength, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0800, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(time, 12);
    record.writeUInt16LE(date, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(body.length, 20);
    record.writeUInt32LE(entry.data.byteLength, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    central.push(record, name);
    offset += local.length + name.length + body.length;
    if (offset > 0xffffffff) throw new Error("archive too large for a zip without zip64");
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  const out = Buffer.concat([...parts, ...central, end]);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
