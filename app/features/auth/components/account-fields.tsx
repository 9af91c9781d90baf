import type { ComponentProps } from "react";
import { Field } from "~/components/ui/field";
import { PHONE_HINT } from "../phone-hint";

type FieldProps = Partial<ComponentProps<typeof Field>>;

/** The password rules as a person reads them (password-policy.server.ts enforces them). */
export const NEW_PASSWORD_HINT = "At least 10 characters, mixing letters with digits or symbols.";

/**
 * A new password: sign-up, saving a guest account, resetting, changing it in settings. The
 * browser's password manager offers a generated one (autocomplete="new-password").
 */
export function NewPasswordField(props: FieldProps) {
  return (
    <Field
      label="Password"
      name="password"
      type="password"
      autoComplete="new-password"
      required
      minLength={10}
      hint={NEW_PASSWORD_HINT}
      {...props}
    />
  );
}

/** A one-time code: e-mailed or texted, from an authenticator app, or a backup code. */
export function CodeField(props: FieldProps) {
  return (
    <Field
      label="Code"
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      required
      {...props}
    />
  );
}

/** The username people find you by (the same pattern the server checks). */
export function UsernameField(props: FieldProps) {
  return (
    <Field
      label="Username"
      name="username"
      autoComplete="username"
      required
      pattern="[A-Za-z0-9_.]{3,30}"
      hint="3–30 letters, digits, “_” or “.”; people find you by it."
      {...props}
    />
  );
}

/** An e-mail address to sign in or be reached with. */
export function EmailField(props: FieldProps) {
  return <Field label="Email" name="email" type="email" autoComplete="email" required {...props} />;
}

/** A phone number to sign in or be texted codes at. */
export function PhoneField(props: FieldProps) {
  return (
    <Field
      label="Phone"
      name="phone"
      type="tel"
      autoComplete="tel"
      inputMode="tel"
      required
      hint={PHONE_HINT}
      {...props}
    />
  );
}

/** The name shown on posts and comments. */
export function DisplayNameField(props: FieldProps) {
  return <Field label="Display name" name="displayName" autoComplete="name" required {...props} />;
}

/** The password someone already has: to sign in, or to confirm it is them before a change. */
export function CurrentPasswordField(props: FieldProps) {
  return (
    <Field
      label="Password"
      name="password"
      type="password"
      autoComplete="current-password"
      {...props}
    />
  );
}
