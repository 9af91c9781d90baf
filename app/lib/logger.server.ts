import pino from "pino";

/** One JSON logger for the process; child loggers carry the request id. */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "silent" : "info"),
  base: { service: "soundtrail" },
  timestamp: pino.stdTimeFunctions.isoTime,
});
