import { index, layout, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  layout("routes/_landing/layout.tsx", [index("routes/_landing/home.tsx")]),
  route("auth", "routes/_auth/layout.tsx", [
    index("routes/_auth/index.tsx"),
    route("login", "routes/_auth/login.tsx"),
    route("signup", "routes/_auth/signup.tsx"),
    route("confirm", "routes/_auth/confirm.tsx"),
    route("logout", "routes/_auth/logout.tsx"),
    route("*", "routes/_auth/not-found.tsx"),
  ]),
  layout("routes/_app/layout.tsx", [
    route("feed", "routes/_app/feed.tsx"),
    route("post/:id", "routes/_app/post.tsx"),
    route("profile", "routes/_app/profile.tsx"),
    route("search", "routes/_app/search.tsx"),
    route("notifications", "routes/_app/notifications.tsx"),
    route("chatbot", "routes/_app/chatbot.tsx"),
    route("settings", "routes/_app/settings.tsx"),
    route("admin", "routes/_app/admin.tsx"),
  ]),
  route("api/color-mode", "routes/api/color-mode.ts"),
] satisfies RouteConfig;
