import { redirect } from "react-router";
import { signOut } from "~/features/auth/accounts.server";
import { getViewer } from "~/features/auth/guards.server";
import { flashToastCookie } from "~/lib/toast.server";
import type { Route } from "./+types/logout";

export function loader() {
  return redirect("/");
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const everywhere = form.get("everywhere") === "1";
  const headers = await signOut({
    headers: request.headers,
    everywhere,
    userId: getViewer(context)?.id,
  });
  headers.append(
    "Set-Cookie",
    await flashToastCookie({
      type: "info",
      title: everywhere ? "Signed out on every device" : "Signed out",
    }),
  );
  return redirect("/", { headers });
}
