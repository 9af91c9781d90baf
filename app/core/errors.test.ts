import { describe, expect, it } from "vitest";
import { APP_ERROR_STATUS, AppError, appErrorInit, isAppError, statusForAppError } from "./errors";

describe("the one error contract", () => {
  it("maps every code to its HTTP status in one place, also on the error itself", () => {
    for (const [code, status] of Object.entries(APP_ERROR_STATUS)) {
      const error = new AppError(code as keyof typeof APP_ERROR_STATUS, "x");
      expect(error.status).toBe(status);
      expect(statusForAppError(error.code)).toBe(status);
      expect(isAppError(error)).toBe(true);
    }
    expect(isAppError(new Error("x"))).toBe(false);
  });

  it("answers rate_limited with 429 and Retry-After in whole seconds", () => {
    const init = appErrorInit(new AppError("rate_limited", "Slow down.", 12.2));
    expect(init.status).toBe(429);
    expect(new Headers(init.headers).get("Retry-After")).toBe("13");
    const plain = appErrorInit(new AppError("not_found", "Gone."));
    expect(plain.status).toBe(404);
    expect(new Headers(plain.headers).get("Retry-After")).toBeNull();
  });
});
