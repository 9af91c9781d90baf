import { data } from "react-router";
import type { Route } from "./+types/post";

/**
 * `/post/:id` accepts any string (spec §2). Posting has not shipped yet, so no id can
 * match a post: every request is the 404 page, never a 500.
 */
export function loader({ request }: Route.LoaderArgs) {
  throw data(`Page not found: ${new URL(request.url).pathname}`, { status: 404 });
}

export default function Post() {
  return null;
}
