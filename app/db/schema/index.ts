export * from "./app-meta";
export * from "./auth";
export * from "./mail";
export * from "./profiles";
export * from "./rate-limits";
