import { useFetchers, useMatches, useRouteLoaderData } from "react-router";
import { type ColorMode, isColorMode, resolveColorMode } from "./color-mode";

interface RootData {
  colorMode: ColorMode;
}

/** The colour mode to render: an in-flight switch wins, then a route's forced mode, then the cookie. */
export function useColorMode(): ColorMode {
  const rootData = useRouteLoaderData<RootData>("root");
  const matches = useMatches();
  const pending = useFetchers()
    .find((f) => f.key === "color-mode")
    ?.formData?.get("mode");
  return resolveColorMode(isColorMode(pending) ? pending : rootData?.colorMode, matches);
}

/** The stored preference (what the switch shows), ignoring a route's forced mode. */
export function useColorModePreference(): ColorMode {
  const rootData = useRouteLoaderData<RootData>("root");
  const pending = useFetchers()
    .find((f) => f.key === "color-mode")
    ?.formData?.get("mode");
  if (isColorMode(pending)) return pending;
  return rootData?.colorMode ?? "system";
}
