import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), tsconfigPaths()],
  build: {
    sourcemap: false,
    rollupOptions: {
      output: {
        // Issue 17 item 1: tiny side-effect-free chunks merged (≤ 1 KB; 2 KB put /feed over its
        // JS budget), and shared chunks named by their hash alone: each is listed in every
        // document's modulepreload links and route manifest, ~130 times on /feed.
        experimentalMinChunkSize: 1024,
        chunkFileNames: "assets/[hash].js",
      },
    },
  },
});
