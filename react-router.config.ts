import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Tests may build elsewhere so a running dev build is not disturbed.
  buildDirectory: process.env.SOUNDTRAIL_BUILD_DIR ?? "build",
  // Every v8 flag is set, so a build prints no "Future Flag Warning" (React Router warns about
  // each flag left undefined). The false ones are decided, not forgotten: each changes the build
  // or the request contract (route module chunks and their JS budgets, the Vite plugins'
  // server-build entry, the request URL loaders see, the `.data` address the upload progress in
  // app/lib/upload-progress.ts posts to) and is turned on with its own tests when v8 comes.
  future: {
    v8_middleware: true,
    v8_splitRouteModules: false,
    v8_viteEnvironmentApi: false,
    v8_passThroughRequests: false,
    v8_trailingSlashAwareDataRequests: false,
  },
} satisfies Config;
