import { fileURLToPath } from "node:url";
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

/**
 * React Router's server build with every route behind the app's edge
 * (app/lib/route-errors.server.ts: expected failures answered one way; the headers a route's
 * data() sets passed on): a module that stands in for `virtual:react-router/server-build`, so
 * `react-router dev`, the production server and every script that loads the build get the
 * same routes, wrapped once.
 */
function serverBuildAtTheEdge(): Plugin {
  const BUILD = "virtual:react-router/server-build";
  const WRAPPER = "\0soundtrail:server-build";
  const edge = fileURLToPath(new URL("./app/lib/route-errors.server.ts", import.meta.url));
  return {
    name: "soundtrail:server-build-at-the-edge",
    enforce: "pre",
    resolveId(id, importer) {
      return id === BUILD && importer !== WRAPPER ? WRAPPER : null;
    },
    load(id) {
      if (id !== WRAPPER) return null;
      return [
        `import * as build from "${BUILD}";`,
        `import { atTheServerEdge } from ${JSON.stringify(edge)};`,
        `export * from "${BUILD}";`,
        // A module's own export wins over the same name from `export *`.
        "export const routes = atTheServerEdge(build).routes;",
      ].join("\n");
    },
  };
}

/**
 * The node server (server/index.ts) is a second entry of the server build, next to React
 * Router's: one module graph, so the server and the app share every module (one logger, one
 * AppError class) and the server reaches the app as the app reaches itself. React Router names
 * its entry `index.js`; the server's is `server.js` (postbuild.mjs starts it from server.mjs).
 */
function nodeServerEntry(): Plugin {
  return {
    name: "soundtrail:node-server-entry",
    apply: "build",
    outputOptions(options) {
      if (options.entryFileNames !== "index.js") return null;
      return {
        ...options,
        entryFileNames: (chunk) => (chunk.name === "server" ? "server.js" : "index.js"),
      };
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  // `npm start` builds quietly (scripts/start.mjs): warnings and errors only, no list of every
  // asset a newcomer would have to read past; `npm run build` still lists them.
  logLevel: process.env.SOUNDTRAIL_QUIET_BUILD === "1" ? "warn" : "info",
  plugins: [
    serverBuildAtTheEdge(),
    nodeServerEntry(),
    tailwindcss(),
    reactRouter(),
    tsconfigPaths(),
  ],
  build: {
    sourcemap: false,
    rollupOptions: {
      // Resource routes (api/*, media, art …) have no browser code, so their client chunk is
      // empty by design: one "Generated an empty chunk" line each is noise on a first start.
      onwarn(warning, warn) {
        if (warning.code === "EMPTY_BUNDLE") return;
        warn(warning);
      },
      input: isSsrBuild
        ? { index: "virtual:react-router/server-build", server: "./server/index.ts" }
        : undefined,
      output: {
        // Issue 17 item 1: tiny side-effect-free chunks merged (≤ 1 KB; 2 KB put /feed over its
        // JS budget), and shared chunks named by their hash alone: each is listed in every
        // document's modulepreload links and route manifest, ~130 times on /feed.
        experimentalMinChunkSize: 1024,
        chunkFileNames: "assets/[hash].js",
      },
    },
  },
}));
