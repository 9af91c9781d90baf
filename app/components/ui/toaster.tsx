// The unstyled build: its stylesheet is part of app.css. The default build adds a <style> to the
// head when it is imported, after hydration, which makes the browser restyle the whole page.
import { ToastContainer, type ToastContentProps, toast } from "react-toastify/unstyled";
import { Icon, type IconName } from "~/components/ui/icon";
import { TOAST_TIMEOUT_MS, type ToastMessage } from "~/lib/toast";

export interface ToastAction {
  label: string;
  onClick: () => void;
}

export interface ShowToastOptions extends ToastMessage {
  actions?: ToastAction[];
  /** Milliseconds before closing; `false` keeps it open. Defaults to 5000. */
  timeout?: number | false;
}

const icons: Record<"info" | "success" | "warning" | "error", IconName> = {
  info: "info",
  success: "circle-check",
  warning: "triangle-exclamation-point",
  error: "circle-x",
};

const iconColours = {
  info: "text-sky-700 dark:text-sky-300",
  success: "text-primary",
  warning: "text-amber-700 dark:text-amber-300",
  error: "text-danger",
} as const;

function ToastBody({
  closeToast,
  data,
}: ToastContentProps<Pick<ShowToastOptions, "title" | "description" | "actions">>) {
  return (
    <div className="flex flex-col gap-1 pr-2">
      <p className="font-semibold">{data.title}</p>
      {data.description ? (
        <p className="text-sm text-muted-foreground">{data.description}</p>
      ) : null}
      {data.actions?.length ? (
        <div className="mt-2 flex gap-2">
          {data.actions.map((action) => (
            <button
              key={action.label}
              type="button"
              className="rounded-md border border-border px-2.5 py-1 text-sm font-medium hover:bg-muted"
              onClick={() => {
                action.onClick();
                closeToast();
              }}
            >
              {action.label}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** Shows a toast at the bottom right (title, description, icon, colour, actions, close). */
export function showToast({ id, type = "info", timeout, ...content }: ShowToastOptions) {
  const iconName = icons[type];
  return toast(ToastBody, {
    toastId: id,
    type,
    data: content,
    autoClose: timeout ?? TOAST_TIMEOUT_MS,
    icon: <Icon name={iconName} className={`size-5 ${iconColours[type]}`} />,
  });
}

export function Toaster() {
  return (
    <ToastContainer
      position="bottom-right"
      autoClose={TOAST_TIMEOUT_MS}
      pauseOnHover
      pauseOnFocusLoss
      closeOnClick={false}
      hideProgressBar={false}
      newestOnTop
      role="status"
    />
  );
}
