import { Link, useLocation } from "react-router";
import { EmailField, PhoneField } from "./account-fields";

/** Which identifier a sign-in or sign-up form asks for; `?with=phone` switches, without JS. */
export type ContactKind = "email" | "phone";

export function contactKindOf(url: string): ContactKind {
  return new URL(url).searchParams.get("with") === "phone" ? "phone" : "email";
}

/** The "Email" or "Phone" field, with a link to use the other one instead. */
export function ContactField({
  kind,
  defaultValue,
  errors,
}: {
  kind: ContactKind;
  defaultValue?: string;
  errors?: { email?: string[]; phone?: string[] };
}) {
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  if (kind === "phone") params.delete("with");
  else params.set("with", "phone");
  const switchHref = `${location.pathname}${params.size ? `?${params}` : ""}`;
  return (
    <div className="flex flex-col gap-1">
      {kind === "phone" ? (
        <PhoneField defaultValue={defaultValue} errors={errors?.phone} />
      ) : (
        <EmailField defaultValue={defaultValue} errors={errors?.email} />
      )}
      <Link
        to={switchHref}
        replace
        preventScrollReset
        className="self-start text-sm font-medium text-primary underline"
      >
        {kind === "phone" ? "Use an e-mail address instead" : "Use a phone number instead"}
      </Link>
    </div>
  );
}
