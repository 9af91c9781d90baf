import { BarChart3, Flag, Mail, MessageSquare, ScrollText, Users } from "lucide-react";
import { NavLink } from "react-router";
import { cn } from "~/lib/utils";

const SECTIONS = [
  { to: "/admin", label: "Statistics", Icon: BarChart3, end: true },
  { to: "/admin/comments", label: "Comments", Icon: MessageSquare, end: false },
  { to: "/admin/users", label: "Users", Icon: Users, end: false },
  { to: "/admin/reports", label: "Reports", Icon: Flag, end: false },
  { to: "/admin/audit", label: "Audit log", Icon: ScrollText, end: false },
  { to: "/admin/email", label: "Bulk e-mail", Icon: Mail, end: false },
] as const;

/** The admin area's section navigation; scrolls sideways on a phone. */
export function AdminNav() {
  return (
    <nav aria-label="Admin sections" className="-mx-4 mb-6 overflow-x-auto px-4">
      <ul className="flex min-w-max gap-1 border-b border-border">
        {SECTIONS.map(({ to, label, Icon, end }) => (
          <li key={to}>
            <NavLink
              to={to}
              end={end}
              prefetch="intent"
              className={({ isActive }) =>
                cn(
                  "-mb-px flex items-center gap-2 border-b-2 px-3 py-2 text-sm font-medium",
                  isActive
                    ? "border-primary text-foreground"
                    : "border-transparent text-muted-foreground hover:text-foreground",
                )
              }
            >
              <Icon aria-hidden="true" className="size-4" />
              {label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
