import { Link } from "react-router";

/** The footer; signed-in people are not offered an account they already have. */
export function SiteFooter({ isSignedIn = false }: { isSignedIn?: boolean }) {
  return (
    <footer className="mt-auto border-t border-border">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground">
        <p>Soundtrail — share your music journey with friends.</p>
        <nav aria-label="Footer">
          <ul className="flex gap-4">
            <li>
              <Link to="/feed" prefetch="intent" className="hover:text-foreground">
                Public feed
              </Link>
            </li>
            {isSignedIn ? (
              <li>
                <Link to="/settings" prefetch="intent" className="hover:text-foreground">
                  Settings
                </Link>
              </li>
            ) : (
              <li>
                <Link to="/auth/signup" prefetch="intent" className="hover:text-foreground">
                  Create an account
                </Link>
              </li>
            )}
          </ul>
        </nav>
      </div>
    </footer>
  );
}
