import { Monitor, Moon, Sun } from "lucide-react";
import { useFetcher } from "react-router";
import type { ColorMode } from "~/lib/color-mode";
import { cn } from "~/lib/utils";

const options: { mode: ColorMode; label: string; Icon: typeof Sun }[] = [
  { mode: "system", label: "System", Icon: Monitor },
  { mode: "light", label: "Light", Icon: Sun },
  { mode: "dark", label: "Dark", Icon: Moon },
];

/** System / light / dark; saved in a cookie so the server renders the right theme. */
export function ColorModeSwitch({ current }: { current: ColorMode }) {
  const fetcher = useFetcher({ key: "color-mode" });
  return (
    <fetcher.Form method="post" action="/api/color-mode" className="flex">
      <fieldset className="flex rounded-lg border border-border p-0.5">
        <legend className="sr-only">Colour mode</legend>
        {options.map(({ mode, label, Icon }) => (
          <button
            key={mode}
            type="submit"
            name="mode"
            value={mode}
            aria-pressed={current === mode}
            title={`${label} theme`}
            className={cn(
              "rounded-md p-1.5 text-muted-foreground hover:text-foreground",
              current === mode && "bg-muted text-foreground",
            )}
          >
            <Icon aria-hidden="true" className="size-4" />
            <span className="sr-only">{label} theme</span>
          </button>
        ))}
      </fieldset>
    </fetcher.Form>
  );
}
