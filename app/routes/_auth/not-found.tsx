import { data } from "react-router";
import type { Route } from "./+types/not-found";

/** Unknown pages under /auth/ are auth pages (spec §2) that do not exist: a 404. */
export function loader({ request }: Route.LoaderArgs) {
  throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 });
}

export default function AuthNotFound() {
  return null;
}
