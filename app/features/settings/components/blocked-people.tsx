import { Form, Link, useNavigation } from "react-router";
import { useFormResend } from "~/components/hooks/use-resend";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SendStatus } from "~/components/ui/send-status";
import type { BlockedPerson } from "../privacy.server";

/** Unblock for one person: kept, said and sent again when the network let it down (ADR 037). */
function Unblock({ person, isBusy }: { person: BlockedPerson; isBusy: boolean }) {
  const send = useFormResend(
    (form) => form.get("intent") === "unblock" && form.get("userId") === person.id,
  );
  return (
    <Form ref={send.formRef} method="post" className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="intent" value="unblock" />
      <input type="hidden" name="userId" value={person.id} />
      <input type="hidden" name="name" value={person.displayName} />
      <SendStatus state={send.state} onRetry={send.retryNow} verb="save" />
      <Button
        type="submit"
        variant="secondary"
        size="sm"
        disabled={isBusy}
        aria-label={`Unblock ${person.displayName}`}
      >
        Unblock
      </Button>
    </Form>
  );
}

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
              <Unblock person={person} isBusy={busy === person.id} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
