import { Link } from "react-router";

/** The footer; signed-in people are not offered an account they already have. */
export function SiteFooter({ isSignedIn = false }: { isSignedIn?: boolean }) {
  return (
    // .site-footer (app.css): its box, and its links' hover colour.
    <footer className="site-footer">
      <div>
        <p>Soundtrail — share your music journey with friends.</p>
        <nav aria-label="Footer">
          <ul>
            <li>
              <Link to="/feed" prefetch="intent">
                Public feed
              </Link>
            </li>
            {isSignedIn ? (
              <li>
                <Link to="/settings" prefetch="intent">
                  Settings
                </Link>
              </li>
            ) : (
              <li>
                <Link to="/auth/signup" prefetch="intent">
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
