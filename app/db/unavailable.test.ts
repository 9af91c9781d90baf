import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "./client.server";
import { databaseFailureKind, isDatabaseUnavailable } from "./unavailable.server";

const withCode = (code: string, message = "boom") => Object.assign(new Error(message), { code });
/** How Drizzle reports a driver error: its own error, the driver's as `cause`. */
const wrapped = (cause: unknown) =>
  Object.assign(new Error("Failed query: select 1\nparams: "), {
    name: "DrizzleQueryError",
    cause,
  });

describe("what counts as a database outage", () => {
  it.each([
    ["connection refused", withCode("ECONNREFUSED"), "ECONNREFUSED"],
    ["reset by peer", withCode("ECONNRESET"), "ECONNRESET"],
    ["class 08 (connection exception)", withCode("08006"), "08006"],
    ["admin shutdown", withCode("57P01"), "57P01"],
    ["cannot connect now (starting up)", withCode("57P03"), "57P03"],
    ["too many connections", withCode("53300"), "53300"],
    [
      "node-postgres: terminated",
      new Error("Connection terminated unexpectedly"),
      "connection-lost",
    ],
    [
      "pool connect timeout",
      new Error("timeout exceeded when trying to connect"),
      "connection-lost",
    ],
    ["PGlite closed", new Error("PGlite is closed"), "closed"],
    ["our own start-up error", new DatabaseUnavailableError("cannot open"), "unavailable"],
    ["wrapped by Drizzle", wrapped(withCode("ECONNREFUSED")), "ECONNREFUSED"],
    ["in an AggregateError", new AggregateError([withCode("ECONNREFUSED")]), "ECONNREFUSED"],
  ])("%s", (_name, error, kind) => {
    expect(databaseFailureKind(error)).toBe(kind);
  });

  it.each([
    ["a unique violation", wrapped(withCode("23505"))],
    ["a syntax error", wrapped(withCode("42601"))],
    ["a serialization failure", withCode("40001")],
    ["a plain bug", new TypeError("x is undefined")],
    ["not an error at all", "nope"],
    ["null", null],
  ])("not %s", (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("survives a cause cycle", () => {
    const a = new Error("a") as Error & { cause?: unknown };
    a.cause = a;
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
