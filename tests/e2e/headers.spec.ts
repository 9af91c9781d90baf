import { expect, test } from "./fixtures";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test.describe("HTTP headers and endpoints", () => {
  test("the page's Content-Security-Policy nonce matches every inline script", async ({ page }) => {
    const cspViolations: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
        cspViolations.push(message.text());
      }
    });

    const response = await page.goto("/");
    if (!response) throw new Error("no response for /");
    const csp = (await response.allHeaders())["content-security-policy"] ?? "";
    const nonce = csp.match(/script-src [^;]*'nonce-([^']+)'/)?.[1];
    expect(nonce, `a script-src nonce in: ${csp}`).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    // Only our own files and this response's nonce may run: no 'unsafe-inline' in production.
    const scriptSrc = csp.split(";").find((directive) => directive.trim().startsWith("script-src"));
    expect(scriptSrc?.trim()).toBe(`script-src 'self' 'nonce-${nonce}'`);

    const html = await response.text();
    const scriptTags = html.match(/<script\b[^>]*>/g) ?? [];
    const inlineScripts = scriptTags.filter((tag) => !/\bsrc=/.test(tag));
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const tag of scriptTags) {
      expect(tag).toMatch(new RegExp(`\\bnonce="${escapeRegExp(nonce ?? "")}"`));
    }

    // The browser agrees: every script element carries the nonce, and none was blocked.
    const domNonces = await page.evaluate(() =>
      Array.from(document.querySelectorAll("script"), (script) => script.nonce),
    );
    expect(domNonces.length).toBeGreaterThan(0);
    expect(new Set(domNonces)).toEqual(new Set([nonce]));
    await expect(page.getByRole("link", { name: "Create your account" })).toBeVisible();
    expect(cspViolations).toEqual([]);

    // A fresh nonce for every response.
    const again = await page.request.get("/");
    const againNonce = again.headers()["content-security-policy"]?.match(/'nonce-([^']+)'/)?.[1];
    expect(againNonce).toBeTruthy();
    expect(againNonce).not.toBe(nonce);
  });

  test("pages carry the basic security headers", async ({ request }) => {
    const response = await request.get("/");
    const headers = response.headers();
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  test("built scripts are cached for a year and served brotli-compressed", async ({ request }) => {
    const page = await request.get("/");
    const scriptPath = (await page.text()).match(/\/assets\/[\w.-]+\.js/)?.[0];
    if (!scriptPath) throw new Error("no /assets/*.js in the landing page");

    const br = await request.get(scriptPath, { headers: { "Accept-Encoding": "br" } });
    expect(br.status()).toBe(200);
    expect(br.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(br.headers()["content-encoding"]).toBe("br");
    expect(br.headers()["content-type"]).toMatch(/^text\/javascript/);
    expect(br.headers()["x-content-type-options"]).toBe("nosniff");

    const plain = await request.get(scriptPath, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers()["content-encoding"]).toBeUndefined();
    expect(plain.headers()["cache-control"]).toBe("public, max-age=31536000, immutable");
    // What the brotli variant decodes to is exactly the original file.
    expect((await br.body()).equals(await plain.body())).toBe(true);
  });

  test("/healthz and /readyz answer 200 with JSON", async ({ request }) => {
    const health = await request.get("/healthz");
    expect(health.status()).toBe(200);
    expect(health.headers()["content-type"]).toMatch(/^application\/json/);
    expect(await health.json()).toEqual({ status: "ok" });

    const ready = await request.get("/readyz");
    expect(ready.status()).toBe(200);
    expect(ready.headers()["content-type"]).toMatch(/^application\/json/);
    expect(await ready.json()).toEqual({ status: "ready" });
  });

  test("a colour-mode change posted from another site is refused with 403", async ({
    request,
    baseURL,
  }) => {
    const evil = await request.post("/api/color-mode", {
      form: { mode: "dark" },
      headers: { Origin: "https://evil.example" },
      maxRedirects: 0,
    });
    expect(evil.status()).toBe(403);
    expect(evil.headers()["set-cookie"]).toBeUndefined();

    // The same request from Soundtrail itself goes through.
    const own = await request.post("/api/color-mode", {
      form: { mode: "dark" },
      headers: { Origin: baseURL ?? "" },
      maxRedirects: 0,
    });
    expect(own.status()).toBe(200);
    expect(await own.json()).toEqual({ ok: true, mode: "dark" });
  });

  test("a colour-mode change sets both the theme cookie and the toast cookie", async ({
    request,
    baseURL,
  }) => {
    const response = await request.post("/api/color-mode", {
      form: { mode: "dark" },
      headers: { Origin: baseURL ?? "" },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(200);
    const setCookies = response
      .headersArray()
      .filter(({ name }) => name.toLowerCase() === "set-cookie")
      .map(({ value }) => value.split("=")[0]);
    expect(setCookies.sort()).toEqual(["st_flash", "st_theme"]);
  });
});
