import { isRouteErrorResponse } from "react-router";
import { isNetworkError } from "./resilient-send";

export interface DescribedError {
  status: number;
  statusText: string;
  message: string;
  /** Only in development. */
  stack?: string;
  /** A lazily loaded route module failed to load (usually a new deploy). */
  isChunkLoadError: boolean;
  /** The browser could not reach the server (offline): no error of ours, and it passes. */
  isNetworkError?: boolean;
}

/** The standard reason phrases (RFC 9110), so the message always matches the code. */
const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The reason phrase for `status`; never another code's (React Router may carry a stale one). */
export function statusTextFor(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? "Server Error" : status >= 400 ? "Error" : "");
}

const CHUNK_ERROR =
  /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i;

/** Turns whatever a route threw into what the error screen shows. */
export function describeRouteError(
  error: unknown,
  pathname: string,
  isDevelopment: boolean,
): DescribedError {
  if (isRouteErrorResponse(error)) {
    const statusText = statusTextFor(error.status);
    if (error.status === 404) {
      return {
        status: 404,
        statusText,
        message: `Page not found: ${pathname}`,
        isChunkLoadError: false,
      };
    }
    const message = typeof error.data === "string" && error.data.trim() ? error.data : statusText;
    return { status: error.status, statusText, message, isChunkLoadError: false };
  }
  const isChunkLoadError = error instanceof Error && CHUNK_ERROR.test(error.message);
  if (!isChunkLoadError && isNetworkError(error)) {
    return {
      status: 0,
      statusText: "You're offline",
      message: "We couldn't reach Soundtrail. This page comes back by itself when you're online.",
      isChunkLoadError: false,
      isNetworkError: true,
    };
  }
  return {
    status: 500,
    statusText: statusTextFor(500),
    message:
      isDevelopment && error instanceof Error
        ? error.message
        : "Something went wrong on our side. Please try again.",
    stack: isDevelopment && error instanceof Error ? error.stack : undefined,
    isChunkLoadError,
  };
}
