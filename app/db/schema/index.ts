export * from "./app-meta";
export * from "./mail";
