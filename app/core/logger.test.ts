import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createLogger,
  currentRequestId,
  requestLogContext,
  withRequestLogContext,
} from "./logger.server";

function collectingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger(requestLogContext(), destination);
  log.level = "info";
  return { log, lines };
}

describe("logger", () => {
  it("stamps every line written while a request is served with its id, across awaits and timers", async () => {
    const { log, lines } = collectingLogger();
    log.info("before");
    await withRequestLogContext("req-1", async () => {
      log.info("at once");
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.warn({ postId: "p1" }, "after a timer");
      expect(currentRequestId()).toBe("req-1");
    });
    await withRequestLogContext("req-2", async () => log.info("another request"));
    log.info("after");
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ["before", undefined],
      ["at once", "req-1"],
      ["after a timer", "req-1"],
      ["another request", "req-2"],
      ["after", undefined],
    ]);
    expect(lines[2]).toMatchObject({ postId: "p1", service: "soundtrail" });
    expect(currentRequestId()).toBeUndefined();
  });

  it("keeps an id the line itself gives", async () => {
    const { log, lines } = collectingLogger();
    await withRequestLogContext("req-3", async () => log.info({ requestId: "explicit" }, "x"));
    expect(lines[0]?.requestId).toBe("explicit");
  });
});
