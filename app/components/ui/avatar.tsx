import { cn } from "~/lib/utils";

// md is .avatar's own size (app.css): no classes on the post cards' avatars; these override it.
const sizes = {
  sm: "size-8 text-xs",
  md: "",
  lg: "size-20 text-2xl",
} as const;

// Background colours with white text at ≥ 4.5:1 contrast in both themes.
const palette = ["#15803d", "#0e7490", "#6d28d9", "#be185d", "#b45309", "#1d4ed8", "#4d7c0f"];

function colourFor(seed: string): string {
  let hash = 0;
  for (const ch of seed) hash = (hash * 31 + ch.charCodeAt(0)) | 0;
  return palette[Math.abs(hash) % palette.length] ?? "#15803d";
}

/**
 * A person's picture, or their initial on a colour derived from their username. Decorative by
 * default: the name next to it says who it is.
 */
export function Avatar({
  name,
  username,
  src,
  size = "md",
  className,
}: {
  name: string;
  username: string;
  src: string | null;
  size?: keyof typeof sizes;
  className?: string;
}) {
  // .avatar (app.css): the round frame, centred initial, bold text, muted backdrop for a picture.
  const classes = cn("avatar", sizes[size], className);
  if (src) {
    // No width/height attributes: .avatar and the size classes give it its size (CSS that
    // blocks rendering, so nothing moves when the picture arrives).
    return <img src={src} alt="" loading="lazy" className={classes} />;
  }
  return (
    <span
      aria-hidden="true"
      className={cn(classes, "text-white")}
      style={{ backgroundColor: colourFor(username) }}
    >
      {(name.trim()[0] ?? username[0] ?? "?").toUpperCase()}
    </span>
  );
}
