// After `react-router build`: the server's launcher, the scripts' bundles, the build id,
// precompressed assets.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";
import { BUNDLE_OPTIONS, CLI_ENTRIES } from "./lib-bundle.mjs";
import { STAMP, sourceFingerprint } from "./source-fingerprint.mjs";

const buildDir = path.resolve(process.env.SOUNDTRAIL_BUILD_DIR ?? "build");
const clientDir = path.join(buildDir, "client");

/** One entry bundled for Node 20 as an ES module, its packages left to node_modules. */
const bundleForNode = (entry, file, options = {}) =>
  build({
    entryPoints: [entry],
    outfile: path.join(buildDir, file),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
    ...options,
  });

// The node server is built with the app (vite.config.ts: build/server/server.js); server.mjs
// is what `npm start`, the image and the tests run.
writeFileSync(
  path.join(buildDir, "server.mjs"),
  '// Starts the production server (server/index.ts, built with the app).\nimport "./server/server.js";\n',
);

// The operator's commands (npm run db:move / backup / restore) for images without esbuild.
await bundleForNode("app/db/ops-cli.server.ts", "ops.mjs", { tsconfig: "tsconfig.json" });

// The scripts that run app code (npm run seed, auth:rotate-key), for images without esbuild.
for (const [name, entry] of Object.entries(CLI_ENTRIES)) {
  await build({
    entryPoints: [entry],
    outfile: path.join(buildDir, "cli", `${name}.mjs`),
    tsconfig: "tsconfig.json",
    ...BUNDLE_OPTIONS,
  });
}

// The worker thread that reads listening-history files for an import
// (app/features/journey/importers/worker.server.ts looks for it in the build directory).
await bundleForNode("app/features/journey/importers/worker-entry.server.ts", "import-worker.mjs", {
  tsconfig: "tsconfig.json",
});

const { default: serverBuild } = { default: await import(path.join(buildDir, "server/index.js")) };
const id = createHash("sha256")
  .update(serverBuild.assets.version)
  .update(String(Date.now()))
  .digest("hex")
  .slice(0, 16);
writeFileSync(path.join(clientDir, "version.json"), JSON.stringify({ id }));

// The service worker's cache name follows what it precaches, so a changed offline page or icon
// replaces the old cache (and the changed sw.js makes browsers install the new worker).
const swFile = path.join(clientDir, "sw.js");
const offlineHash = createHash("sha256");
for (const name of ["offline.html", "icon-192.png", "favicon.svg"]) {
  offlineHash.update(readFileSync(path.join(clientDir, name)));
}
writeFileSync(
  swFile,
  readFileSync(swFile, "utf8").replace(
    "__OFFLINE_VERSION__",
    offlineHash.digest("hex").slice(0, 12),
  ),
);

const COMPRESSIBLE = /\.(js|mjs|css|json|svg|webmanifest|txt|map|html)$/;
let count = 0;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      walk(file);
    } else if (COMPRESSIBLE.test(name) && !name.endsWith("version.json")) {
      const data = readFileSync(file);
      if (data.length < 512) continue;
      writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      writeFileSync(
        `${file}.br`,
        brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      );
      count++;
    }
  }
}
walk(clientDir);
// What this build was made from: `npm start` after `npm run build` does not build again.
writeFileSync(path.join(buildDir, STAMP), sourceFingerprint());
console.log(`postbuild: scripts bundled, build id ${id}, ${count} assets precompressed`);
