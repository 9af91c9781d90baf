import { Form, Link, useNavigation } from "react-router";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import type { BlockedPerson } from "../privacy.server";

/** /settings/privacy: the people the viewer blocked, each with Unblock. */
export function BlockedPeople({ people }: { people: BlockedPerson[] }) {
  const navigation = useNavigation();
  const busy = navigation.formData?.get("userId");
  return (
    <Card>
      <h2 className="mb-1 text-lg font-semibold">Blocked people</h2>
      <p className="mb-3 text-sm text-muted-foreground">
        People you blocked cannot see your posts, follow you, like or comment; you do not see
        theirs. Block someone from the menu on their profile.
      </p>
      {people.length === 0 ? (
        <p className="text-sm text-muted-foreground">You have not blocked anyone.</p>
      ) : (
        <ul className="flex flex-col divide-y divide-border">
          {people.map((person) => (
            <li key={person.id} className="flex items-center gap-3 py-3">
              <Avatar name={person.displayName} username={person.username} src={person.avatarUrl} />
              <div className="min-w-0 flex-1">
                <Link to={`/u/${person.username}`} className="font-medium hover:underline">
                  {person.displayName}
                </Link>
                <p className="text-sm text-muted-foreground">@{person.username}</p>
              </div>
              <Form method="post">
                <input type="hidden" name="intent" value="unblock" />
                <input type="hidden" name="userId" value={person.id} />
                <input type="hidden" name="name" value={person.displayName} />
                <Button
                  type="submit"
                  variant="secondary"
                  size="sm"
                  disabled={busy === person.id}
                  aria-label={`Unblock ${person.displayName}`}
                >
                  Unblock
                </Button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
