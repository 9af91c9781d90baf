/** The admin feature's public server entry: what other features may import (docs/architecture.md). */

export { recordServiceRoleAudit, SERVICE_ROLE_ACTOR } from "./audit.server";
export * from "./users.server";
