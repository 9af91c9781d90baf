import type { ListenImportStatus, ListenImportSummary } from "~/db/schema/listens";

/** One listening-history import as settings shows it. */
export interface ListenImportView {
  id: string;
  status: ListenImportStatus;
  summary: ListenImportSummary | null;
  total: number;
  processed: number;
  added: number;
  error: string | null;
  createdAt: string;
}
