import http from "node:http";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { type BudgetRow, kb, log, type StepOutcome } from "./lib/report";
import {
  ensureBuild,
  PORTS,
  type RunningServer,
  seedDemo,
  serverEnv,
  startServer,
  tempDataDir,
} from "./lib/server";

/**
 * ARCHITECTURE §9, HTML: ≤ 2 KB per post card, ≤ 60 KB raw for signed-in `/feed` with 20 posts
 * (hydration data included); documents and `.data` responses compressed on the wire. Bytes and
 * headers only — nothing timed.
 */

export const CARD_BUDGET = 2 * 1024;
export const FEED_BUDGET = 60 * 1024;

/** What one raw HTTP exchange put on the wire (node:http: no transparent decompression). */
export interface WireAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Body bytes as sent (compressed when Content-Encoding says so). */
  bytes: number;
}

export function wireGet(url: string, headers: Record<string, string>): Promise<WireAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.byteLength;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** Each `<article …>…</article>` of a page (post cards do not nest articles). */
export function postCards(html: string): string[] {
  return html.match(/<article\b[\s\S]*?<\/article>/g) ?? [];
}

export interface FeedHtml {
  raw: number;
  posts: number;
  cardMax: number;
  cardMean: number;
  /** Inline scripts (React Router's hydration data and bootstrap). */
  scripts: number;
  svg: number;
  classAttributes: number;
  /** What the document would weigh compressed here (brotli 11 / gzip 9): the floor. */
  brotliLocal: number;
  gzipLocal: number;
  wireBrotli: WireAnswer;
  wireGzip: WireAnswer;
  wireIdentity: WireAnswer;
  wireData: WireAnswer;
}

/** Fetches signed-in `/feed` (and `/feed.data`) and takes its sizes apart. */
export async function measureFeedHtml(baseUrl: string, cookie: string): Promise<FeedHtml> {
  const url = `${baseUrl}/feed`;
  const response = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const html = await response.text();
  const cards = postCards(html);
  if (response.status !== 200 || cards.length !== 20) {
    throw new Error(`${url}: HTTP ${response.status}, ${cards.length} posts — expected 20`);
  }
  const cardBytes = cards.map((c) => Buffer.byteLength(c));
  const sum = (parts: readonly string[]) => parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
  const inlineScripts = html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
  const buffer = Buffer.from(html);
  return {
    raw: buffer.byteLength,
    posts: cards.length,
    cardMax: Math.max(...cardBytes),
    cardMean: cardBytes.reduce((a, b) => a + b, 0) / cardBytes.length,
    scripts: sum(inlineScripts),
    svg: sum(html.match(/<svg\b[\s\S]*?<\/svg>/g) ?? []),
    classAttributes: sum(html.match(/ class="[^"]*"/g) ?? []),
    brotliLocal: brotliCompressSync(buffer, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    }).byteLength,
    gzipLocal: gzipSync(buffer, { level: 9 }).byteLength,
    wireBrotli: await wireGet(url, { cookie, "accept-encoding": "gzip, deflate, br" }),
    wireGzip: await wireGet(url, { cookie, "accept-encoding": "gzip" }),
    wireIdentity: await wireGet(url, { cookie }),
    wireData: await wireGet(`${url}.data`, { cookie, "accept-encoding": "gzip, deflate, br" }),
  };
}

function encodingOf(answer: WireAnswer): string {
  return String(answer.headers["content-encoding"] ?? "identity");
}

/** The table rows for one measurement (shared by `html-size` and `feed-ssr`). */
export function htmlRows(step: string, m: FeedHtml): { rows: BudgetRow[]; notes: string[] } {
  const compressed = (a: WireAnswer) => ["br", "gzip"].includes(encodingOf(a));
  const rows: BudgetRow[] = [
    {
      step,
      metric: "HTML per post card, largest of 20 (signed-in /feed)",
      measured: `${m.cardMax} B (mean ${m.cardMean.toFixed(0)} B)`,
      budget: `≤ ${CARD_BUDGET} B`,
      pass: m.cardMax <= CARD_BUDGET,
    },
    {
      step,
      metric: "/feed document raw, signed in, 20 posts",
      measured: `${kb(m.raw)} (${m.raw} B; inline scripts ${kb(m.scripts)})`,
      budget: `≤ ${kb(FEED_BUDGET)}`,
      pass: m.raw <= FEED_BUDGET,
    },
    {
      step,
      metric: "/feed on the wire, Accept-Encoding br",
      measured: `${kb(m.wireBrotli.bytes)} (${encodingOf(m.wireBrotli)})`,
      budget: "compressed",
      pass: compressed(m.wireBrotli),
    },
    {
      step,
      metric: "/feed on the wire, Accept-Encoding gzip",
      measured: `${kb(m.wireGzip.bytes)} (${encodingOf(m.wireGzip)})`,
      budget: "compressed",
      pass: compressed(m.wireGzip),
    },
    {
      step,
      metric: "/feed.data on the wire, Accept-Encoding br",
      measured: `${kb(m.wireData.bytes)} (${encodingOf(m.wireData)})`,
      budget: "compressed",
      pass: compressed(m.wireData),
    },
  ];
  const notes = [
    `/feed signed in: raw ${m.raw} B, of which inline <svg> ${m.svg} B, class attributes ${m.classAttributes} B, inline scripts ${m.scripts} B; ` +
      `without Accept-Encoding ${m.wireIdentity.bytes} B (${encodingOf(m.wireIdentity)}); ` +
      `offline brotli 11 ${m.brotliLocal} B, gzip 9 ${m.gzipLocal} B (what a whole-document compressor reaches; streaming per chunk costs a little more).`,
  ];
  return { rows, notes };
}

export const DEMO_EMAIL = "ana_rivera@demo.soundtrail.test";
const DEMO_PASSWORD = "Soundtrail-demo-2025";

export async function signIn(baseUrl: string, email = DEMO_EMAIL): Promise<string> {
  const response = await fetch(`${baseUrl}/auth/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "password", email, password: DEMO_PASSWORD }),
  });
  const cookies = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    // The session only: a flash-toast cookie would make every response clear it again.
    .filter((c) => /^(?:__Secure-)?soundtrail\.session/.test(c));
  if (response.status >= 400 || cookies.length === 0) {
    throw new Error(`signing in as ${email} failed (HTTP ${response.status})`);
  }
  return cookies.join("; ");
}

/** `npm run bench -- html-size`: the byte budgets alone (seconds, no load test). */
export async function benchHtmlSize(): Promise<StepOutcome> {
  await ensureBuild();
  const data = tempDataDir("html");
  const env = serverEnv({ port: PORTS.htmlSize, dataDir: data.dir });
  let server: RunningServer | null = null;
  try {
    log("html-size: seeding the demo community (npm run seed) …");
    await seedDemo(env);
    server = await startServer(env);
    const cookie = await signIn(server.baseUrl);
    const { rows, notes } = htmlRows("html-size", await measureFeedHtml(server.baseUrl, cookie));
    return { step: "html-size", rows, notes, seconds: 0 };
  } finally {
    await server?.stop();
    data.cleanup();
  }
}
