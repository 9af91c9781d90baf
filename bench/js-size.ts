import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { type BudgetRow, kb, log, type StepOutcome } from "./lib/report";
import {
  BUILD_DIR,
  ensureBuild,
  PORTS,
  type RunningServer,
  serverEnv,
  startServer,
  tempDataDir,
} from "./lib/server";

/**
 * ARCHITECTURE §9: first-load JavaScript for `/feed` ≤ 160 KB gzip; each lazy route adds ≤ 30 KB.
 *
 * Reads what the `/feed` document itself asks the browser to load (its modulepreload links and
 * the imports of its inline module script), from a production server started on an empty
 * database, and sums the gzip size (level 9, as scripts/postbuild.mjs precompresses) of those
 * files in bench/build/client. The same server also proves the fixture route 404s without
 * SOUNDTRAIL_BENCH=1.
 */

const FIRST_LOAD_BUDGET = 160 * 1024;
const LAZY_BUDGET = 30 * 1024;
const BENCH_ROUTE_ID = "routes/bench-fixture";

interface ManifestRoute {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  module: string;
  imports?: string[];
  hasDefaultExport?: boolean;
}

const clientDir = () => path.join(BUILD_DIR, "client");
const sizes = new Map<string, { raw: number; gzip: number; brotli: number }>();

function sizeOf(asset: string) {
  const cached = sizes.get(asset);
  if (cached) return cached;
  const data = readFileSync(path.join(clientDir(), asset));
  const size = {
    raw: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
    brotli: brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
  sizes.set(asset, size);
  return size;
}

function sum(assets: Iterable<string>, key: "raw" | "gzip" | "brotli"): number {
  let total = 0;
  for (const asset of assets) total += sizeOf(asset)[key];
  return total;
}

/** The JavaScript a document loads up front: modulepreload links and module-script imports. */
export function firstLoadScripts(html: string): string[] {
  const found = new Set<string>();
  for (const link of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = link[0];
    if (!/\brel="modulepreload"/.test(tag)) continue;
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href) found.add(href);
  }
  for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    const [, attributes = "", body = ""] = script;
    if (!/\btype="module"/.test(attributes)) continue;
    const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
    if (src) found.add(src);
    for (const m of body.matchAll(/\bimport\s*(?:\(\s*|[^"'()]*?from\s*)?["']([^"']+\.js)["']/g)) {
      if (m[1]) found.add(m[1]);
    }
    // The modulepreload links the server moved into the script, added after the first paint
    // (app/lib/head-links.server.ts `afterFirstPaint`): `for (const href of ["/assets/…"]) …`.
    const preloads = /\bfor \(const href of (\[[^\]]*\])\)/.exec(body)?.[1];
    if (preloads) for (const href of JSON.parse(preloads) as string[]) found.add(href);
  }
  return [...found].filter((url) => url.startsWith("/") && url.endsWith(".js"));
}

/**
 * Every route's client modules, from the server build's assets manifest (the document only
 * inlines the routes it matched: routes are discovered lazily on navigation).
 */
async function readRoutes(): Promise<Record<string, ManifestRoute> | null> {
  try {
    const build = (await import(
      pathToFileURL(path.resolve(BUILD_DIR, "server", "index.js")).href
    )) as { assets?: { routes?: Record<string, ManifestRoute> } };
    return build.assets?.routes ?? null;
  } catch (error) {
    log(`js-size: could not read the server build's manifest: ${(error as Error).message}`);
    return null;
  }
}

export async function benchJsSize(): Promise<StepOutcome> {
  await ensureBuild();
  const data = tempDataDir("js");
  let server: RunningServer | null = null;
  try {
    server = await startServer(serverEnv({ port: PORTS.jsSize, dataDir: data.dir }));
    const response = await fetch(`${server.baseUrl}/feed`);
    const html = await response.text();
    if (response.status !== 200) throw new Error(`/feed answered ${response.status}`);
    const fixtureStatus = (await fetch(`${server.baseUrl}/bench/fixture`)).status;

    const scripts = firstLoadScripts(html).map((url) => url.slice(1));
    const missing = scripts.filter((s) => !existsSync(path.join(clientDir(), s)));
    if (scripts.length === 0 || missing.length > 0) {
      throw new Error(
        `/feed loads ${scripts.length} scripts; not in the build: ${missing.join(", ")}`,
      );
    }
    const css = [...html.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*\bhref="\/([^"]+)"/g)]
      .map((m) => m[1] as string)
      .filter((s) => existsSync(path.join(clientDir(), s)));
    const gzip = sum(scripts, "gzip");
    log(`js-size: /feed loads ${scripts.length} scripts, ${kb(gzip)} gzip`);

    const rows: BudgetRow[] = [
      {
        step: "js-size",
        metric: `first-load JS for /feed, gzip (${scripts.length} files)`,
        measured: `${kb(gzip)} (raw ${kb(sum(scripts, "raw"))}, brotli ${kb(sum(scripts, "brotli"))})`,
        budget: "≤ 160 KB",
        pass: gzip <= FIRST_LOAD_BUDGET,
      },
    ];
    const notes = [
      `/feed (signed out; the same route modules load signed in) loads: ${scripts
        .map((s) => `${path.basename(s)} ${kb(sizeOf(s).gzip)}`)
        .join(", ")}`,
      `CSS (not counted): ${css.map((s) => `${path.basename(s)} ${kb(sizeOf(s).gzip)} gzip`).join(", ") || "none"}`,
    ];

    // Each route reached from /feed by client navigation: its chain's modules not loaded yet.
    const routes = await readRoutes();
    if (routes) {
      const loaded = new Set(scripts);
      const chainOf = (id: string): ManifestRoute[] => {
        const route = routes[id];
        return route ? [...(route.parentId ? chainOf(route.parentId) : []), route] : [];
      };
      const added = Object.values(routes)
        .filter(
          (r) =>
            r.id !== BENCH_ROUTE_ID &&
            r.hasDefaultExport !== false &&
            !Object.values(routes).some((o) => o.parentId === r.id),
        )
        .map((r) => {
          const files = new Set<string>();
          for (const c of chainOf(r.id)) {
            for (const f of [c.module, ...(c.imports ?? [])]) {
              const asset = f.replace(/^\//, "");
              if (!loaded.has(asset) && existsSync(path.join(clientDir(), asset))) files.add(asset);
            }
          }
          return { id: r.id, gzip: sum(files, "gzip") };
        })
        .filter((r) => r.gzip > 0)
        .sort((a, b) => b.gzip - a.gzip);
      const largest = added[0];
      if (largest) {
        rows.push({
          step: "js-size",
          metric: `largest lazy route addition (${largest.id})`,
          measured: kb(largest.gzip),
          budget: "≤ 30 KB",
          pass: largest.gzip <= LAZY_BUDGET,
        });
        notes.push(
          `lazy routes (gzip added on top of /feed's first load, route and parent layouts): ${added
            .map((r) => `${r.id} ${kb(r.gzip)}`)
            .join(", ")}`,
        );
      }
    } else {
      notes.push("the server build's manifest could not be read; lazy routes not measured");
    }
    rows.push({
      step: "js-size",
      metric: "/bench/fixture without SOUNDTRAIL_BENCH=1",
      measured: `HTTP ${fixtureStatus}`,
      budget: "404",
      pass: fixtureStatus === 404,
    });
    return { step: "js-size", rows, notes, seconds: 0 };
  } finally {
    await server?.stop();
    data.cleanup();
  }
}
