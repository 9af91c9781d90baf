// Setup for the "shared" Vitest project, whose files run one after another in the same worker
// with the same modules (isolate: false; see vitest.config.ts). Each file opens its own
// database; what a module keeps between calls is reset here after every file, so no file sees
// another's mail transport, SMS sender, better-auth instance (bound to a database) or keys.
import { afterAll, beforeAll } from "vitest";
import { resetAuth } from "~/features/auth/better-auth.server";
import { resetSigningKeys } from "~/features/auth-api/keys.server";
import { setMailTransport } from "~/features/mail/mail.server";
import { setSmsSender } from "~/features/sms/sms.server";

function forgetModuleState(): void {
  resetAuth();
  resetSigningKeys();
  setMailTransport(undefined);
  setSmsSender(undefined);
}

beforeAll(forgetModuleState);
afterAll(forgetModuleState);
