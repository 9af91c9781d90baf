/** The settings feature's public server entry: what other features may import (docs/architecture.md). */
export * from "./export.server";
export { updateProfile } from "./profile.server";
export * from "./sign-in-methods.server";
