import { z } from "zod";
import { REPORT_REASON_KEYS } from "./reasons";

/** What the report form sends; the same rules run in the browser and on the server. */
export const reportInputSchema = z.object({
  reason: z.enum(REPORT_REASON_KEYS, { error: "Choose a reason." }),
  details: z
    .string()
    .trim()
    .max(1000, "Keep the details under 1,000 characters.")
    .optional()
    .transform((v) => v ?? ""),
});
