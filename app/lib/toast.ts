import { z } from "zod";

export const toastSchema = z.object({
  id: z.string().max(64).optional(),
  type: z.enum(["info", "success", "warning", "error"]).default("info"),
  title: z.string().min(1).max(140),
  description: z.string().max(500).optional(),
});

export type ToastMessage = z.input<typeof toastSchema>;
export const FLASH_COOKIE = "st_flash";
/** Spec §9: toasts close after 5000 ms unless hovered. */
export const TOAST_TIMEOUT_MS = 5000;
