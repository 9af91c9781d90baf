import { useEffect, useState } from "react";
import { createPortal } from "react-dom";

/**
 * A dimmed layer over the page, under the sticky header (z-30), while a menu is open. Rendered
 * into <body> (the header's backdrop blur would otherwise make `fixed` mean "inside the
 * header"); pressing it closes the menu. Client-only: menus start closed on the server.
 */
export function Backdrop({ onClose, className }: { onClose: () => void; className?: string }) {
  const [body, setBody] = useState<HTMLElement | null>(null);
  useEffect(() => setBody(document.body), []);
  if (!body) return null;
  return createPortal(
    <div
      aria-hidden="true"
      data-testid="menu-backdrop"
      className={`fixed inset-0 z-20 bg-black/40 ${className ?? ""}`}
      onPointerDown={(event) => {
        event.preventDefault();
        onClose();
      }}
    />,
    body,
  );
}
