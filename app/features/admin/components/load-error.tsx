import { Icon } from "~/components/ui/icon";

/** The inline message an admin screen shows when its data could not be loaded (spec §8). */
export function LoadError({ message }: { message: string }) {
  return (
    <div
      role="alert"
      className="flex items-start gap-3 rounded-lg border border-danger bg-background p-4 text-danger"
    >
      <Icon name="triangle-exclamation-point" className="mt-0.5 size-5 shrink-0" />
      <div>
        <p className="font-semibold">{message}</p>
        <p className="text-sm">Reload the page to try again. The details are in the server log.</p>
      </div>
    </div>
  );
}
