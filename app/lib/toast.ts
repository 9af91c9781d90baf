// Shared by the browser and the server, so no zod here: the schema that checks a flashed toast
// lives in toast.server.ts and stays out of every page's JavaScript.

export type ToastType = "info" | "success" | "warning" | "error";

/** A toast as the server flashes it to the next page, or as a component shows it. */
export interface ToastMessage {
  id?: string;
  type?: ToastType;
  title: string;
  description?: string;
}

export const FLASH_COOKIE = "st_flash";
/** Spec §9: toasts close after 5000 ms unless hovered. */
export const TOAST_TIMEOUT_MS = 5000;
