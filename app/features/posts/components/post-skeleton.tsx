/** A grey placeholder the shape of a post, shown while posts load. */
export function PostSkeleton() {
  return (
    <div className="animate-pulse rounded-xl border border-border bg-card p-5 motion-reduce:animate-none">
      <div className="flex items-center gap-3">
        <div className="size-10 rounded-full bg-muted" />
        <div className="flex-1 space-y-2">
          <div className="h-3 w-1/3 rounded bg-muted" />
          <div className="h-2.5 w-1/5 rounded bg-muted" />
        </div>
      </div>
      <div className="mt-4 h-14 rounded-lg bg-muted" />
      <div className="mt-3 h-3 w-4/5 rounded bg-muted" />
      <div className="mt-2 h-3 w-3/5 rounded bg-muted" />
    </div>
  );
}
