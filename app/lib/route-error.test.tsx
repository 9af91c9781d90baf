import { renderToStaticMarkup } from "react-dom/server";
import { createMemoryRouter, RouterProvider } from "react-router";
import { describe, expect, it } from "vitest";
import { ErrorScreen } from "~/components/layout/error-screen";
import { describeRouteError } from "./route-error";

function render(error: ReturnType<typeof describeRouteError>) {
  // ErrorScreen renders a <Link>, which needs a router around it.
  const router = createMemoryRouter([{ path: "*", element: <ErrorScreen error={error} /> }]);
  return renderToStaticMarkup(<RouterProvider router={router} />);
}

describe("error screen", () => {
  it("says which page was not found on a 404", () => {
    const described = describeRouteError(
      { status: 404, statusText: "Not Found", internal: true, data: "" },
      "/no/such/page",
      false,
    );
    expect(described).toMatchObject({ status: 404, message: "Page not found: /no/such/page" });
    const html = render(described);
    expect(html).toContain("404");
    expect(html).toContain("Page not found: /no/such/page");
    expect(html).toContain("Go Home");
    expect(html).toContain('href="/"');
  });

  it("shows the status code, status message and the server's explanation", () => {
    const described = describeRouteError(
      { status: 403, statusText: "", internal: false, data: "You cannot do that" },
      "/x",
      false,
    );
    expect(described).toMatchObject({
      status: 403,
      statusText: "Forbidden",
      message: "You cannot do that",
    });
  });

  it.each([
    [403, "Forbidden"],
    [404, "Not Found"],
    [413, "Content Too Large"],
    [429, "Too Many Requests"],
    [500, "Internal Server Error"],
    [503, "Service Unavailable"],
  ])(
    "shows the status message that belongs to %i, whatever statusText came along",
    (status, text) => {
      // A 404 thrown with data() reached the screen as "404 / Internal Server Error".
      const described = describeRouteError(
        { status, statusText: "Internal Server Error", internal: false, data: "" },
        "/x",
        false,
      );
      expect(described.statusText).toBe(text);
      expect(render(described)).toContain(`>${text}</h1>`);
    },
  );

  it("hides the message and stack of unexpected errors outside development", () => {
    const error = new Error("secret database password in message");
    const described = describeRouteError(error, "/feed", false);
    expect(described.status).toBe(500);
    expect(described.statusText).toBe("Internal Server Error");
    expect(described.message).not.toContain("secret");
    expect(described.stack).toBeUndefined();
    const html = render(described);
    expect(html).not.toContain("secret");
    expect(html).toContain("Go Home");
  });

  it("shows the stack in development", () => {
    const described = describeRouteError(new Error("boom"), "/feed", true);
    expect(described.message).toBe("boom");
    expect(described.stack).toContain("boom");
    expect(render(described)).toContain("<pre");
  });

  it("recognises a lazy route that failed to load", () => {
    const described = describeRouteError(
      new TypeError("Failed to fetch dynamically imported module: /assets/feed-abc.js"),
      "/feed",
      false,
    );
    expect(described.isChunkLoadError).toBe(true);
  });
});

describe("a page whose data could not be fetched because the network is gone", () => {
  it("is an offline note that comes back, not a 500", () => {
    const described = describeRouteError(new TypeError("Failed to fetch"), "/feed", false);
    expect(described).toMatchObject({ isNetworkError: true, statusText: "You're offline" });
    expect(described.status).not.toBe(500);
    expect(describeRouteError(new Error("boom"), "/feed", false)).toMatchObject({
      status: 500,
    });
  });
});
