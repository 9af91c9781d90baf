import { Form } from "react-router";
import { Icon, type IconName } from "~/components/ui/icon";
import type { ColorMode } from "~/lib/color-mode";

const options: { mode: ColorMode; label: string; icon: IconName }[] = [
  { mode: "system", label: "System", icon: "monitor" },
  { mode: "light", label: "Light", icon: "sun" },
  { mode: "dark", label: "Dark", icon: "moon" },
];

/** System / light / dark; saved in a cookie so the server renders the right theme. */
export function ColorModeSwitch({ current }: { current: ColorMode }) {
  // A fetcher's form by key (`useColorMode` reads the submission by that key), not a
  // `useFetcher`: the account menu's items unmount after hydration, and unmounting a
  // `useFetcher` updates the router's state, which renders the whole page again.
  return (
    <Form
      method="post"
      action="/api/color-mode"
      navigate={false}
      fetcherKey="color-mode"
      // A resource route: nothing to discover.
      discover="none"
      className="flex"
    >
      <fieldset className="flex rounded-lg border border-border p-0.5">
        <legend className="sr-only">Colour mode</legend>
        {options.map(({ mode, label, icon }) => (
          <button
            key={mode}
            type="submit"
            name="mode"
            value={mode}
            aria-pressed={current === mode}
            title={`${label} theme`}
            // .mode-button (app.css): the chosen mode by aria-pressed.
            className="mode-button"
          >
            <Icon name={icon} className="size-4" />
            <span className="sr-only">{`${label} theme`}</span>
          </button>
        ))}
      </fieldset>
    </Form>
  );
}
