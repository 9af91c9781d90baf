import { createCookie } from "react-router";
import { describe, expect, it } from "vitest";
import { colorModeOf, colorModeSetCookie } from "./color-mode.server";
import { getEnv, resolveAuthSecret } from "./env.server";
import { FLASH_COOKIE } from "./toast";
import {
  clearFlashCookie,
  flashToastCookie,
  readFlashToast,
  redirectWithToast,
} from "./toast.server";

/** The request a browser sends back after receiving `setCookie`. */
function requestWith(...setCookies: string[]): Request {
  const cookie = setCookies.map((header) => header.split(";")[0]).join("; ");
  return new Request("http://localhost/", { headers: { Cookie: cookie } });
}

describe("the flash toast cookie (React Router's signed cookie)", () => {
  it("carries a toast to the next page, once, for a minute, out of reach of scripts", async () => {
    const header = await flashToastCookie({ type: "success", title: "Post deleted" });
    expect(header).toMatch(new RegExp(`^${FLASH_COOKIE}=`));
    expect(header).toMatch(/Max-Age=60/);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Lax/);
    await expect(readFlashToast(requestWith(header))).resolves.toEqual({
      toast: { type: "success", title: "Post deleted" },
      present: true,
    });
    expect(await clearFlashCookie()).toMatch(new RegExp(`^${FLASH_COOKIE}=; Max-Age=0`));
  });

  it("says nothing when there is no cookie", async () => {
    await expect(readFlashToast(new Request("http://localhost/"))).resolves.toEqual({
      toast: null,
      present: false,
    });
  });

  it("refuses a changed value, and a value signed with AUTH_SECRET itself or for another cookie", async () => {
    const header = await flashToastCookie({ type: "info", title: "Hello" });
    const value = header.split(";")[0]?.slice(FLASH_COOKIE.length + 1) ?? "";
    const [payload, mac] = value.split(".");
    const forged = Buffer.from(JSON.stringify({ type: "error", title: "Your account is locked" }))
      .toString("base64")
      .replace(/=+$/, "");
    const tampered = `${FLASH_COOKIE}=${forged}.${mac}`;
    expect((await readFlashToast(requestWith(tampered))).toast).toBeNull();
    expect((await readFlashToast(requestWith(`${FLASH_COOKIE}=${payload}`))).toast).toBeNull();
    // The same value signed with the raw secret: valid for React Router, not for this cookie.
    const raw = createCookie(FLASH_COOKIE, { secrets: [resolveAuthSecret(getEnv())] });
    const withRawSecret = await raw.serialize({ type: "error", title: "Phish" });
    const read = await readFlashToast(requestWith(withRawSecret));
    expect(read).toEqual({ toast: null, present: true });
  });

  it("checks the signed value's shape as well", async () => {
    await expect(flashToastCookie({ type: "info", title: "" })).rejects.toThrow();
  });

  it("redirectWithToast sets it on the redirect", async () => {
    const response = await redirectWithToast("/feed", { type: "success", title: "Saved" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/feed");
    const read = await readFlashToast(requestWith(response.headers.get("Set-Cookie") ?? ""));
    expect(read.toast?.title).toBe("Saved");
  });
});

describe("the colour mode cookie", () => {
  it("remembers the choice for a year", async () => {
    const header = await colorModeSetCookie("dark");
    expect(header).toMatch(/^st_theme=/);
    expect(header).toMatch(/Max-Age=31536000/);
    await expect(colorModeOf(requestWith(header))).resolves.toBe("dark");
  });

  it("is the system's mode when absent or not a mode", async () => {
    await expect(colorModeOf(new Request("http://localhost/"))).resolves.toBe("system");
    await expect(colorModeOf(requestWith("st_theme=purple"))).resolves.toBe("system");
    // Written before the cookie was React Router's: the bare word still counts.
    await expect(colorModeOf(requestWith("st_theme=light"))).resolves.toBe("light");
    const other = await createCookie("st_theme").serialize({ mode: "dark" });
    await expect(colorModeOf(requestWith(other))).resolves.toBe("system");
  });
});
