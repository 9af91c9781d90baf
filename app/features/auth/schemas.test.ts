import { describe, expect, it } from "vitest";
import { atTheEdge } from "~/lib/route-errors.server";
import * as signupRoute from "~/routes/_auth/signup";
import { MISSING_CREDENTIALS, signupSchema } from "./schemas";

const { action: signupAction } = atTheEdge(signupRoute);

function signupRequest(fields: Record<string, string>): Request {
  return new Request("http://localhost:3000/auth/signup", {
    method: "POST",
    body: new URLSearchParams(fields),
  });
}

describe("the sign-up form's refusals", () => {
  it("names every mistake at once, in words, next to its field", () => {
    const empty = signupSchema.safeParse({ email: "not-an-email" });
    expect(empty.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["username", "Choose a username."],
      ["displayName", "Tell people what to call you."],
      ["form", MISSING_CREDENTIALS],
    ]);
    const wrong = signupSchema.safeParse({
      email: "not-an-email",
      password: "whatever-it-is",
      username: "ab",
      displayName: "Ab",
    });
    expect(wrong.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["username", "Use at least 3 characters."],
      ["email", "Enter a valid e-mail address."],
    ]);
  });

  it("refuses a contact field of the wrong type with its own message, without throwing", () => {
    // Found by parsers.fuzz.test.ts: JSON can send an object where a form sends text.
    const odd = signupSchema.safeParse({ phone: {}, password: "\udfff" });
    expect(odd.success).toBe(false);
    expect(odd.error?.issues.map((i) => i.path.join("."))).toEqual([
      "phone",
      "username",
      "displayName",
    ]);
  });

  it("answers the one failure shape, keeping what was typed (no password)", async () => {
    const answer = (await signupAction({
      request: signupRequest({ email: "not-an-email", username: "ab", password: "secret" }),
    } as unknown as Parameters<typeof signupAction>[0])) as unknown as {
      data: unknown;
      init: { status: number };
    };
    expect(answer.init.status).toBe(400);
    expect(answer.data).toEqual({
      status: "error",
      ok: false,
      fieldErrors: {
        username: ["Use at least 3 characters."],
        displayName: ["Tell people what to call you."],
        email: ["Enter a valid e-mail address."],
      },
      values: { contact: "not-an-email", username: "ab", displayName: "" },
    });
  });
});
