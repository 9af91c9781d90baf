import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Tests may build elsewhere so a running dev build is not disturbed.
  buildDirectory: process.env.SOUNDTRAIL_BUILD_DIR ?? "build",
  future: {
    v8_middleware: true,
  },
} satisfies Config;
