/** Spec §9: admin tables (comments, users, …) show 12 rows a page. */
export const ADMIN_PAGE_SIZE = 12;

export interface PageInfo {
  /** 1-based page actually shown (clamped into range). */
  page: number;
  /** At least 1, so an empty table reads "page 1 of 1". */
  totalPages: number;
  total: number;
  pageSize: number;
  /** Spec §4: Next only while page < total pages. */
  hasNext: boolean;
  /** Spec §4: Previous only while page > 1. */
  hasPrevious: boolean;
}

export interface Paged<T> extends PageInfo {
  items: T[];
}

/** Reads `?page=` leniently: anything that is not a positive integer means page 1. */
export function parsePageParam(value: string | null | undefined): number {
  if (!value || !/^\d{1,9}$/.test(value)) return 1;
  return Math.max(Number(value), 1);
}

/** Paging facts for `total` rows when page `requested` is asked for. */
export function pageInfo(total: number, requested: number, pageSize = ADMIN_PAGE_SIZE): PageInfo {
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.floor(requested) || 1), totalPages);
  return {
    page,
    totalPages,
    total,
    pageSize,
    hasNext: page < totalPages,
    hasPrevious: page > 1,
  };
}

/** The OFFSET for a (clamped) page. */
export function pageOffset(info: Pick<PageInfo, "page" | "pageSize">): number {
  return (info.page - 1) * info.pageSize;
}
