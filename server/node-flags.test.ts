import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "./node-flags";

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), "utf8");

describe("the server's heap limits", () => {
  it("npm start runs the server with them", () => {
    const start = JSON.parse(read("package.json")).scripts.start as string;
    expect(start).toBe(`node ${SERVER_NODE_FLAGS.join(" ")} scripts/start.mjs`);
  });

  it("the Docker image sets them as NODE_OPTIONS, which docker run -e can change", () => {
    expect(read("Dockerfile")).toContain(`ENV NODE_OPTIONS="${SERVER_NODE_FLAGS.join(" ")}"`);
  });

  it("the browser tests' and the bench's servers start with them", () => {
    for (const file of ["playwright.config.ts", "tests/e2e/own-server.ts", "bench/lib/server.ts"]) {
      expect(read(file), file).toContain("SERVER_NODE_FLAGS");
    }
  });
});
