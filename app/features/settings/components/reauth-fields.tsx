import { CodeField, CurrentPasswordField } from "~/features/auth";

/**
 * The password and/or authenticator code a sensitive change asks for when the sign-in is not
 * recent enough (or not two-step): shown in place, next to what the person already typed.
 */
export function ReauthFields({ errors }: { errors?: Partial<Record<string, string[]>> }) {
  if (!errors?.password && !errors?.code) return null;
  return (
    <fieldset className="flex flex-col gap-4 rounded-lg border border-border p-4">
      <legend className="px-1 text-sm font-medium">Confirm it is you</legend>
      {errors.password ? (
        <CurrentPasswordField label="Your password" errors={errors.password} autoFocus />
      ) : null}
      {errors.code ? (
        <CodeField
          label="Code from your authenticator app"
          errors={errors.code}
          autoFocus={!errors.password}
        />
      ) : null}
    </fieldset>
  );
}
