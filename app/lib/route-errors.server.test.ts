import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { data } from "react-router";
import { describe, expect, it } from "vitest";
import { AppError } from "~/core/errors";
import { atTheEdge, forForm, refuse } from "./route-errors.server";
import { readFlashToast } from "./toast.server";

const args = { request: new Request("http://localhost:3000/somewhere", { method: "POST" }) };

/** What a route function answered at the edge: returned or thrown, a data() or a Response. */
async function answerOf(run: () => unknown) {
  let value: unknown;
  let thrown = false;
  try {
    value = await run();
  } catch (error) {
    value = error;
    thrown = true;
  }
  if (value instanceof Response) {
    const text = await value.text();
    return {
      thrown,
      status: value.status,
      headers: value.headers,
      body: text ? JSON.parse(text) : null,
    };
  }
  if (value instanceof Error) throw value;
  const answer = value as { type?: string; data?: unknown; init?: ResponseInit | null };
  if (answer?.type !== "DataWithResponseInit") {
    return { thrown, status: 200, headers: new Headers(), body: value };
  }
  return {
    thrown,
    status: answer.init?.status ?? 200,
    headers: new Headers(answer.init?.headers),
    body: answer.data,
  };
}

const page = (fn: () => unknown) =>
  atTheEdge({ default: () => null, loader: fn, action: fn } as {
    default: () => null;
    loader: (a: typeof args) => unknown;
    action: (a: typeof args) => unknown;
  });
const resource = (fn: () => unknown) =>
  atTheEdge({ loader: fn, action: fn } as {
    loader: (a: typeof args) => unknown;
    action: (a: typeof args) => unknown;
  });

describe("expected failures at the edge", () => {
  it("a page's loader shows the error screen with the AppError's status and message", async () => {
    const route = page(() => {
      throw new AppError("not_found", "This post does not exist, or you cannot see it.");
    });
    expect(await answerOf(() => route.loader(args))).toMatchObject({
      thrown: true,
      status: 404,
      body: "This post does not exist, or you cannot see it.",
    });
  });

  it("a page's action answers the refusal as its data, with the status and Retry-After", async () => {
    const route = page(() => {
      throw new AppError("rate_limited", "Too many attempts. Please wait a minute.", 42);
    });
    const answer = await answerOf(() => route.action(args));
    expect(answer).toMatchObject({
      thrown: false,
      status: 429,
      body: { ok: false, message: "Too many attempts. Please wait a minute.", fieldErrors: {} },
    });
    expect(answer.headers.get("Retry-After")).toBe("42");
  });

  it("a resource route answers the same refusal as JSON, loader and action alike", async () => {
    const route = resource(() => {
      throw new AppError("forbidden", "You need the admin role for this.");
    });
    for (const call of [() => route.loader(args), () => route.action(args)]) {
      expect(await answerOf(call)).toMatchObject({
        status: 403,
        body: { ok: false, message: "You need the admin role for this.", fieldErrors: {} },
      });
    }
  });

  it("a form's echo goes back with the refusal: its intent, values and the field it is about", async () => {
    const route = page(() =>
      forForm(
        { intent: "profile", values: { username: "ana" }, field: { conflict: "username" } },
        () => {
          throw new AppError("conflict", "This username is taken.");
        },
      ),
    );
    expect(await answerOf(() => route.action(args))).toMatchObject({
      status: 409,
      body: {
        ok: false,
        intent: "profile",
        values: { username: "ana" },
        fieldErrors: { username: ["This username is taken."] },
      },
    });
    // Another code is the whole form's.
    const other = page(() =>
      forForm({ field: { conflict: "username" } }, () => {
        throw new AppError("invalid", "Something else.");
      }),
    );
    expect((await answerOf(() => other.action(args))).body).toMatchObject({
      message: "Something else.",
      fieldErrors: {},
    });
  });

  it("a refusal that asks for a toast goes back to its page with the message in a toast", async () => {
    const route = page(() =>
      forForm({ toast: { to: "/settings/privacy", title: "That did not work" } }, () => {
        throw new AppError("not_found", "This request is gone.");
      }),
    );
    let response: unknown;
    try {
      response = await route.action(args);
    } catch (error) {
      response = error;
    }
    expect(response).toBeInstanceOf(Response);
    const redirect = response as Response;
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("Location")).toBe("/settings/privacy");
    const cookie = redirect.headers.get("Set-Cookie") ?? "";
    const { toast } = await readFlashToast(
      new Request("http://localhost/", { headers: { Cookie: cookie } }),
    );
    expect(toast).toMatchObject({
      type: "error",
      title: "That did not work",
      description: "This request is gone.",
    });
  });

  it("anything else is a bug and stays one; answers and thrown data() pass untouched", async () => {
    const bug = page(() => {
      throw new TypeError("x is undefined");
    });
    await expect(bug.loader(args)).rejects.toThrow("x is undefined");
    await expect(bug.action(args)).rejects.toThrow("x is undefined");
    const deliberate = page(() => {
      throw data("Unknown action", { status: 400 });
    });
    expect(await answerOf(() => deliberate.action(args))).toMatchObject({
      thrown: true,
      status: 400,
      body: "Unknown action",
    });
    expect(await answerOf(() => page(() => ({ ok: true })).action(args))).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it("a refused account action answers the same shape, with its machine code and reasons", async () => {
    const answer = refuse(
      {
        kind: "invalid",
        code: "weak_password",
        reasons: ["length"],
        fieldErrors: { password: ["Use at least 8 characters."] },
      },
      { stage: "form" },
    );
    expect(answer.init?.status).toBe(400);
    expect(answer.data).toEqual({
      stage: "form",
      ok: false,
      fieldErrors: { password: ["Use at least 8 characters."] },
      code: "weak_password",
      reasons: ["length"],
    });
  });
});

describe("routes", () => {
  it("leave expected failures to the edge: no route module catches an AppError itself", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (/\.tsx?$/.test(name)) files.push(file);
      }
    };
    walk(path.resolve("app/routes"));
    expect(files.length).toBeGreaterThan(50);
    const catching = files.filter((file) => readFileSync(file, "utf8").includes("isAppError("));
    expect(catching).toEqual([]);
  });
});
