/**
 * The layers of app/ (docs/architecture.md), enforced by `npm run lint:layers` (part of
 * `npm run lint`, so of `npm test` and CI). Bottom to top:
 *
 *   lib ─ db ─ core ─ features/* ─ routes and the modules directly in app/ ─ server/
 *   components (shared UI) may be used from features and routes, and uses only lib.
 *
 * A module may import its own layer and the layers below it; a feature may import another
 * feature only through that feature's public entry (`index.ts`, `index.server.ts`). No
 * module imports itself back through others; scripts/layers.mjs (the lint step that runs this
 * config) checks the same between features and keeps docs/architecture.md's graph current.
 */
/** Tests may reach across layers (an integration test of the visibility rule uses features). */
const TESTS = "\\.(test|fuzz\\.test)\\.tsx?$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "lib-is-the-floor",
      comment:
        "app/lib holds framework-free helpers any layer may use; it imports nothing of the app but itself and the core's leaves (errors, logger).",
      severity: "error",
      from: { path: "^app/lib/", pathNot: TESTS },
      to: {
        path: "^app/",
        pathNot: ["^app/lib/", "^app/core/errors\\.ts$", "^app/core/logger\\.server\\.ts$"],
      },
    },
    {
      name: "db-below-core",
      comment: "app/db (schema, client, transaction type) imports only lib and the core's leaves.",
      severity: "error",
      from: { path: "^app/db/", pathNot: TESTS },
      to: {
        path: "^app/",
        pathNot: [
          "^app/db/",
          "^app/lib/",
          "^app/core/errors\\.ts$",
          "^app/core/logger\\.server\\.ts$",
        ],
      },
    },
    {
      name: "core-below-features",
      comment:
        "app/core (visibility, person projection, social-event vocabulary, errors, rate limiting, logger, metrics) imports only core, db and lib.",
      severity: "error",
      from: { path: "^app/core/", pathNot: TESTS },
      to: { path: "^app/", pathNot: ["^app/core/", "^app/db/", "^app/lib/"] },
    },
    {
      name: "components-are-shared-ui",
      comment: "app/components is UI any page may use; it imports only components and lib.",
      severity: "error",
      from: { path: "^app/components/", pathNot: TESTS },
      to: { path: "^app/", pathNot: ["^app/components/", "^app/lib/"] },
    },
    {
      name: "features-below-routes",
      comment:
        "A feature never imports a route or a module directly in app/ (the root, the entries, the composition root).",
      severity: "error",
      from: { path: "^app/features/", pathNot: TESTS },
      to: { path: "^app/(routes/|[^/]+\\.tsx?$)" },
    },
    {
      name: "feature-public-entry",
      comment:
        "A feature imports another feature only through its public entry: ~/features/<name> (index.ts) or ~/features/<name>/index.server.",
      severity: "error",
      from: { path: "^app/features/([^/]+)/" },
      to: {
        path: "^app/features/[^/]+/",
        pathNot: ["^app/features/$1/", "^app/features/[^/]+/index(\\.server)?\\.tsx?$"],
      },
    },
    {
      name: "no-server-code-in-the-browser-entry",
      comment: "A feature's index.ts is imported by browser code: it re-exports no .server module.",
      severity: "error",
      from: { path: "^app/features/[^/]+/index\\.ts$" },
      to: { path: "\\.server\\.tsx?$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      comment:
        "No module imports itself back through others: a cycle makes the order modules start in an accident.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "server-is-the-top",
      comment:
        "server/ (the node process around the app) uses lib, core and db, and the app only through the modules directly in app/; nothing in app/ imports it.",
      severity: "error",
      from: { path: "^server/", pathNot: TESTS },
      to: { path: "^app/", pathNot: ["^app/(lib|core|db)/", "^app/[^/]+\\.tsx?$"] },
    },
    {
      name: "app-below-server",
      comment: "The app never imports the node server around it.",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^server/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^(app|server)/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs"],
    },
  },
};
