export * from "./app-meta";
