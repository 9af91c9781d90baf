import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pathToFileURL } from "node:url";
import sharp from "sharp";

/*
 * A local stand-in for the streaming services' public metadata, speaking the real protocols:
 * oEmbed JSON at `/oembed?url=…&format=json` (with `thumbnail_url` and an `html` iframe), pages
 * with Open Graph tags under `/page/…`, an image at `/art.png`, a player page at `/player`.
 * What the link's path contains picks a misbehaviour, for the refusal tests:
 *   "redirect" → a redirect to the same server under another host name (localhost),
 *   "private"  → artwork on an allowed CDN name (the test resolves it to a private address),
 *   "huge"     → an oEmbed answer of 1 MB,
 *   "slow"     → an answer that never completes,
 *   "missing"  → 404,
 *   "hang"     → (in the player's id) a player page that never loads.
 * Unit tests start it in-process; the e2e web server runs this file (FAKE_MUSIC_PORT).
 */

export interface FakeMusicService {
  origin: string;
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  stop(): Promise<void>;
}

let artwork: Buffer | undefined;
async function artworkPng(): Promise<Buffer> {
  artwork ??= await sharp({
    create: { width: 900, height: 900, channels: 3, background: { r: 230, g: 90, b: 30 } },
  })
    .png()
    .toBuffer();
  return artwork;
}

function json(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

export async function startFakeMusicService(port = 0): Promise<FakeMusicService> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let origin = "";
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      requests.push(`${url.pathname}${url.search}`);
      const link = url.searchParams.get("url") ?? url.pathname;
      if (url.pathname === "/healthz") {
        res.end("ok");
        return;
      }
      if (url.pathname === "/art.png") {
        const png = await artworkPng();
        res.writeHead(200, { "Content-Type": "image/png", "Content-Length": png.byteLength });
        res.end(png);
        return;
      }
      if (url.pathname === "/player" && url.searchParams.get("id")?.startsWith("hang")) {
        return; // a player that never loads
      }
      if (url.pathname === "/player") {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(
          `<!doctype html><html lang="en"><title>Fake player</title><body><p>Fake player for ${url.searchParams.get("id") ?? "?"}</p></body></html>`,
        );
        return;
      }
      if (link.includes("missing")) {
        res.writeHead(404).end();
        return;
      }
      if (link.includes("slow")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.write("{");
        return; // never ends; the client gives up
      }
      if (link.includes("redirect") && !req.headers.host?.startsWith("localhost")) {
        res.writeHead(302, {
          Location: `http://localhost:${(server.address() as AddressInfo).port}${url.pathname}${url.search}`,
        });
        res.end();
        return;
      }
      if (link.includes("huge")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ title: "x".repeat(1024 * 1024) }));
        return;
      }
      const id = /([A-Za-z0-9]+)\/?$/.exec(new URL(link, origin).pathname)?.[1] ?? "x";
      const thumbnail = link.includes("private")
        ? "https://i.scdn.co/image/ab67616d0000b273"
        : `${origin}/art.png`;
      if (url.pathname === "/oembed") {
        json(res, {
          version: "1.0",
          type: "rich",
          provider_name: "Fake",
          title: "Roads (Live) ",
          author_name: "Portishead",
          thumbnail_url: thumbnail,
          thumbnail_width: 900,
          thumbnail_height: 900,
          html: `<iframe width="100%" height="152" title="Fake player" src="${origin}/player?id=${id}&amp;utm=1" allow="encrypted-media"></iframe>`,
        });
        return;
      }
      if (url.pathname.startsWith("/page/") || url.pathname.startsWith("/album/")) {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(
          `<!doctype html><html><head><meta property="og:title" content="Dummy, by Portishead">
<meta property="og:image" content="${thumbnail}"><meta name="description" content="x"></head><body></body></html>`,
        );
        return;
      }
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${actual}`;
  return {
    origin,
    port: actual,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// Run as a program (the e2e web server): listen on FAKE_MUSIC_PORT until stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const service = await startFakeMusicService(Number(process.env.FAKE_MUSIC_PORT ?? 0));
  process.stdout.write(`fake music service on ${service.origin}\n`);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => void service.stop().then(() => process.exit(0)));
  }
}
