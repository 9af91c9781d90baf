import {
  type FormEvent,
  type KeyboardEvent,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { Form, Link, useNavigate, useNavigation, useRevalidator } from "react-router";
import { Button } from "~/components/ui/button";
import { ConfirmSubmitButton } from "~/components/ui/dialog";
import { Icon } from "~/components/ui/icon";
import { cn } from "~/lib/utils";
import type { ChatActionData } from "../constants";
import {
  ASSISTANT_MESSAGE_MAX_LENGTH,
  ASSISTANT_SUGGESTIONS,
  ASSISTANT_TITLE_MAX_LENGTH,
  type MessageStatus,
  messageProblem,
  type PostDraft,
} from "../constants";
import type { ConversationSummary, StoredMessage } from "../conversations.server";
import { parseStreamEvents } from "../stream-protocol";
import { ReplyMarkdown } from "./reply-markdown";

interface Conversation {
  id: string;
  title: string;
  messages: StoredMessage[];
}

/** A reply being written in this tab (before the stored copy comes back from the loader). */
interface LiveTurn {
  /** The conversation on screen when it was sent (null: a new one)… */
  originId: string | null;
  /** …and the one it went to (known once the stream starts). */
  conversationId: string | null;
  /** How many stored messages the conversation had when it was sent. */
  baseline: number;
  userText: string;
  text: string;
  draft: PostDraft | null;
  notice: string | null;
  status: "streaming" | MessageStatus;
}

/** Markdown reduced to what a screen reader should say. */
function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\\(.)/g, "$1")
    .replace(/[*_`#>]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The chat's own error line: a refused send or change (a refused draft shows in the draft). */
function chatError(actionData: ChatActionData | null): string | null {
  if (!actionData || actionData.intent === "publish") return null;
  return actionData.message ?? null;
}

export function ChatScreen({
  conversations,
  conversation,
  actionData,
}: {
  conversations: ConversationSummary[];
  conversation: Conversation | null;
  actionData: ChatActionData | null;
}) {
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  const [live, setLive] = useState<LiveTurn | null>(null);
  const [error, setError] = useState<string | null>(chatError(actionData));
  const [announcement, setAnnouncement] = useState("");
  const [isListOpen, setListOpen] = useState(false);
  const controllerRef = useRef<AbortController | null>(null);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const composerId = useId();
  const stored = conversation?.messages ?? [];
  const currentId = conversation?.id ?? null;
  const isStreaming = live?.status === "streaming";

  useEffect(() => {
    setError(chatError(actionData));
  }, [actionData]);

  // The live turn goes once the loader has both of its messages stored.
  const liveBelongsHere = live !== null && live.conversationId === currentId;
  const storedSinceSend = liveBelongsHere ? stored.length - live.baseline : 0;
  useEffect(() => {
    if (live && live.status !== "streaming" && liveBelongsHere && storedSinceSend >= 2) {
      setLive(null);
    }
  }, [live, liveBelongsHere, storedSinceSend]);

  // A stopped reply is stored by the server a moment after the browser lets go: look again.
  useEffect(() => {
    if (live?.status !== "stopped" || !liveBelongsHere || storedSinceSend >= 2) return;
    const timer = setTimeout(() => revalidator.revalidate(), 400);
    return () => clearTimeout(timer);
  }, [live, liveBelongsHere, storedSinceSend, revalidator]);

  const messageCount = stored.length + (live ? 2 : 0);
  const liveTextLength = live?.text.length ?? 0;
  useEffect(() => {
    if (messageCount === 0 && liveTextLength === 0) return;
    endRef.current?.scrollIntoView({ block: "nearest" });
  }, [messageCount, liveTextLength]);

  const send = useCallback(
    async (text: string) => {
      if (controllerRef.current) return;
      const problem = messageProblem(text);
      if (problem) {
        setError(problem);
        return;
      }
      const message = text.trim();
      setError(null);
      setAnnouncement("");
      const controller = new AbortController();
      controllerRef.current = controller;
      const body = new FormData();
      body.set("message", message);
      if (currentId) body.set("conversationId", currentId);
      let conversationId = currentId;
      let isNew = false;
      let reply = "";
      setLive({
        originId: currentId,
        conversationId: currentId,
        baseline: stored.length,
        userText: message,
        text: "",
        draft: null,
        notice: null,
        status: "streaming",
      });
      if (textareaRef.current) textareaRef.current.value = "";
      try {
        const response = await fetch("/api/assistant", {
          method: "POST",
          body,
          signal: controller.signal,
          headers: { Accept: "text/event-stream" },
        });
        if (!response.ok || !response.body) {
          const refusal = (await response.json().catch(() => null)) as { message?: string } | null;
          setLive(null);
          setError(refusal?.message ?? "The assistant could not answer. Please try again.");
          if (textareaRef.current) textareaRef.current.value = message;
          return;
        }
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const { events, rest } = parseStreamEvents(buffer + value);
          buffer = rest;
          for (const event of events) {
            if (event.type === "start") {
              conversationId = event.data.conversationId;
              isNew = event.data.isNewConversation;
              setLive((l) => (l ? { ...l, conversationId, baseline: isNew ? 0 : l.baseline } : l));
            } else if (event.type === "text") {
              reply += event.data.text;
              const chunk = event.data.text;
              setLive((l) => (l ? { ...l, text: l.text + chunk } : l));
            } else if (event.type === "notice") {
              const notice = event.data.text;
              reply = "";
              setLive((l) => (l ? { ...l, notice, text: "" } : l));
            } else if (event.type === "draft") {
              const draft = event.data.draft;
              setLive((l) => (l ? { ...l, draft } : l));
            } else if (event.type === "done") {
              const status = event.data.status;
              setLive((l) => (l ? { ...l, status } : l));
            }
          }
        }
        setLive((l) => (l && l.status === "streaming" ? { ...l, status: "complete" } : l));
        setAnnouncement(`The assistant replied: ${plainText(reply)}`);
      } catch {
        if (controller.signal.aborted) {
          setLive((l) => (l ? { ...l, status: "stopped" } : l));
          setAnnouncement("Reply stopped.");
        } else {
          setLive((l) =>
            l ? { ...l, status: "complete", notice: "The connection was lost." } : l,
          );
          setError("The connection was lost before the reply finished.");
        }
      } finally {
        controllerRef.current = null;
      }
      if (conversationId && conversationId !== currentId) {
        await navigate(`/chatbot?c=${conversationId}`, { preventScrollReset: true });
      } else {
        await revalidator.revalidate();
      }
      textareaRef.current?.focus();
    },
    [currentId, stored.length, navigate, revalidator],
  );

  const stop = () => controllerRef.current?.abort();

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void send(textareaRef.current?.value ?? "");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (!isStreaming) event.currentTarget.form?.requestSubmit();
    }
  };

  const shownLive = live && (liveBelongsHere || live.originId === currentId) ? live : null;
  const showLiveUser = shownLive !== null && storedSinceSend < 1;
  const isEmpty = stored.length === 0 && !shownLive;
  const publishData = actionData?.intent === "publish" ? actionData : null;

  return (
    <div className="grid gap-4 md:grid-cols-[15rem_minmax(0,1fr)]">
      <nav aria-label="Conversations" className="flex flex-col gap-2">
        <div className="flex items-center gap-2">
          <Button
            variant="secondary"
            size="sm"
            className="md:hidden"
            aria-expanded={isListOpen}
            aria-controls={`${composerId}-list`}
            onClick={() => setListOpen((open) => !open)}
          >
            <Icon name="list-music" className="size-4" />
            Conversations ({conversations.length})
          </Button>
          <Link
            to="/chatbot"
            className="inline-flex h-8 items-center gap-2 rounded-lg border border-border bg-card px-3 text-sm font-medium hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Icon name="pencil" className="size-4" />
            New conversation
          </Link>
        </div>
        <ul
          id={`${composerId}-list`}
          className={cn("flex-col gap-1", isListOpen ? "flex" : "hidden md:flex")}
        >
          {conversations.length === 0 ? (
            <li className="text-sm text-muted-foreground">No conversations yet.</li>
          ) : null}
          {conversations.map((c) => (
            <ConversationItem key={c.id} conversation={c} isCurrent={c.id === currentId} />
          ))}
        </ul>
      </nav>

      <section aria-labelledby={`${composerId}-heading`} className="flex min-w-0 flex-col gap-4">
        <h1 id={`${composerId}-heading`} className="text-2xl font-semibold">
          {conversation ? conversation.title : "Assistant"}
        </h1>
        {isEmpty ? (
          <p className="text-muted-foreground">
            Ask about your music journey: your top artists, what your friends play, something new to
            listen to. I answer from your posts and what others shared with you.
          </p>
        ) : null}

        <ol aria-label="Messages" className="flex flex-col gap-3">
          {stored.map((m) => (
            <MessageItem
              key={m.id}
              author={m.role}
              text={m.content}
              status={m.status}
              notice={m.notice}
              draft={m.draft}
              messageId={m.id}
              publishErrors={publishData?.messageId === m.id ? publishData.fieldErrors : undefined}
            />
          ))}
          {shownLive && showLiveUser ? (
            <MessageItem author="user" text={shownLive.userText} status="complete" />
          ) : null}
          {shownLive && storedSinceSend < 2 ? (
            <MessageItem
              author="assistant"
              text={shownLive.text}
              status={shownLive.status}
              notice={shownLive.notice}
              // The draft form comes with the stored message, a moment later: one drawn here
              // would be replaced by that one, and whatever had been typed into it lost.
              draft={null}
            />
          ) : null}
        </ol>
        <div ref={endRef} />

        <div role="status" aria-label="Assistant replies" className="sr-only">
          {announcement}
        </div>

        <Suggestions conversationId={currentId} disabled={isStreaming} onPick={send} />

        <Form
          method="post"
          onSubmit={onSubmit}
          className="flex flex-col gap-2 rounded-xl border border-border bg-card p-3"
        >
          <input type="hidden" name="intent" value="send" />
          {currentId ? <input type="hidden" name="conversationId" value={currentId} /> : null}
          <label htmlFor={composerId} className="text-sm font-medium">
            Message
          </label>
          <textarea
            id={composerId}
            ref={textareaRef}
            name="message"
            rows={2}
            defaultValue={actionData?.intent === "send" ? actionData.typed : ""}
            onKeyDown={onKeyDown}
            aria-describedby={`${composerId}-hint${error ? ` ${composerId}-error` : ""}`}
            aria-invalid={error ? true : undefined}
            className="min-h-16 resize-y rounded-lg border border-border bg-background px-3 py-2 text-foreground"
          />
          <p id={`${composerId}-hint`} className="text-xs text-muted-foreground">
            Enter sends, Shift+Enter starts a new line. Up to{" "}
            {ASSISTANT_MESSAGE_MAX_LENGTH.toLocaleString("en")} characters.
          </p>
          {error ? (
            <p id={`${composerId}-error`} role="alert" className="text-sm text-danger">
              {error}
            </p>
          ) : null}
          <div className="flex justify-end gap-2">
            {isStreaming ? (
              <Button variant="secondary" onClick={stop}>
                <Icon name="circle-x" className="size-4" />
                Stop
              </Button>
            ) : (
              <SendButton />
            )}
          </div>
        </Form>
      </section>
    </div>
  );
}

function SendButton() {
  const navigation = useNavigation();
  const isSending =
    navigation.state === "submitting" && navigation.formData?.get("intent") === "send";
  return (
    <Button type="submit" disabled={isSending}>
      <Icon name="send" className="size-4" />
      Send
    </Button>
  );
}

function Suggestions({
  conversationId,
  disabled,
  onPick,
}: {
  conversationId: string | null;
  disabled: boolean;
  onPick: (text: string) => void;
}) {
  return (
    <ul aria-label="Suggestions" className="flex flex-wrap gap-2">
      {ASSISTANT_SUGGESTIONS.map((suggestion) => (
        <li key={suggestion}>
          <Form
            method="post"
            onSubmit={(event) => {
              event.preventDefault();
              onPick(suggestion);
            }}
          >
            <input type="hidden" name="intent" value="send" />
            <input type="hidden" name="message" value={suggestion} />
            {conversationId ? (
              <input type="hidden" name="conversationId" value={conversationId} />
            ) : null}
            <button
              type="submit"
              disabled={disabled}
              className="rounded-full border border-border bg-background px-3 py-1 text-sm hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring disabled:opacity-60"
            >
              {suggestion}
            </button>
          </Form>
        </li>
      ))}
    </ul>
  );
}

function ConversationItem({
  conversation,
  isCurrent,
}: {
  conversation: ConversationSummary;
  isCurrent: boolean;
}) {
  const [isRenaming, setRenaming] = useState(false);
  const inputId = useId();
  return (
    <li
      className={cn(
        "rounded-lg border",
        isCurrent ? "border-primary bg-accent/40" : "border-transparent",
      )}
    >
      <div className="flex items-center gap-1">
        <Link
          to={`/chatbot?c=${conversation.id}`}
          aria-current={isCurrent ? "page" : undefined}
          className="min-w-0 flex-1 truncate rounded-lg px-2 py-1.5 text-sm hover:bg-muted focus-visible:outline-2 focus-visible:outline-ring"
        >
          {conversation.title}
        </Link>
        <button
          type="button"
          onClick={() => setRenaming((v) => !v)}
          aria-expanded={isRenaming}
          aria-label={`Rename “${conversation.title}”`}
          className="rounded p-1 text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
        >
          <Icon name="pencil" className="size-4" />
        </button>
        <Form method="post">
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="conversationId" value={conversation.id} />
          <ConfirmSubmitButton
            aria-label={`Delete “${conversation.title}”`}
            className="rounded p-1 text-muted-foreground hover:bg-muted hover:text-danger focus-visible:outline-2 focus-visible:outline-ring"
            title={`Delete “${conversation.title}”?`}
            description="The conversation and its replies go. This cannot be undone."
            confirmLabel="Delete conversation"
          >
            <Icon name="trash" className="size-4" />
          </ConfirmSubmitButton>
        </Form>
      </div>
      {isRenaming ? (
        <Form
          method="post"
          className="flex items-end gap-2 p-2"
          onSubmit={() => setRenaming(false)}
        >
          <input type="hidden" name="intent" value="rename" />
          <input type="hidden" name="conversationId" value={conversation.id} />
          <div className="flex min-w-0 flex-1 flex-col gap-1">
            <label htmlFor={inputId} className="text-xs font-medium">
              New name
            </label>
            <input
              id={inputId}
              name="title"
              defaultValue={conversation.title}
              maxLength={ASSISTANT_TITLE_MAX_LENGTH}
              required
              className="h-8 rounded border border-border bg-background px-2 text-sm text-foreground"
            />
          </div>
          <Button type="submit" size="sm">
            Save
          </Button>
        </Form>
      ) : null}
    </li>
  );
}

function MessageItem({
  author,
  text,
  status,
  notice,
  draft,
  messageId,
  publishErrors,
}: {
  author: "user" | "assistant";
  text: string;
  status: "streaming" | MessageStatus;
  notice?: string | null;
  draft?: PostDraft | null;
  messageId?: string;
  publishErrors?: Partial<Record<string, string[]>>;
}) {
  if (author === "user") {
    return (
      <li className="flex justify-end">
        <div className="max-w-[85%] rounded-2xl bg-primary px-4 py-2 whitespace-pre-wrap break-words text-primary-foreground">
          <span className="sr-only">You: </span>
          {text}
        </div>
      </li>
    );
  }
  return (
    <li className="flex flex-col gap-2">
      <div
        className="max-w-[95%] rounded-2xl border border-border bg-card px-4 py-2 break-words"
        aria-busy={status === "streaming" || undefined}
      >
        <span className="sr-only">Assistant: </span>
        {notice ? (
          <p className="mb-1 flex items-center gap-1 text-sm text-muted-foreground">
            <Icon name="info" className="size-4 shrink-0" />
            {notice}
          </p>
        ) : null}
        {text ? (
          <ReplyMarkdown text={text} />
        ) : status === "streaming" ? (
          <p className="text-muted-foreground">Thinking…</p>
        ) : null}
        {status === "stopped" ? (
          <p className="mt-1 text-xs font-medium text-muted-foreground">Stopped</p>
        ) : null}
      </div>
      {draft ? <DraftCard draft={draft} messageId={messageId} errors={publishErrors} /> : null}
    </li>
  );
}

function DraftCard({
  draft,
  messageId,
  errors,
}: {
  draft: PostDraft;
  messageId?: string;
  errors?: Partial<Record<string, string[]>>;
}) {
  const id = useId();
  const navigation = useNavigation();
  const isPublishing =
    navigation.state !== "idle" && navigation.formData?.get("intent") === "publish";
  const fieldError = (name: string) =>
    errors?.[name]?.length ? (
      <p id={`${id}-${name}-error`} className="text-sm text-danger">
        {errors[name]?.join(" ")}
      </p>
    ) : null;
  return (
    <Form
      method="post"
      aria-labelledby={`${id}-heading`}
      className="flex max-w-[95%] flex-col gap-2 rounded-2xl border border-primary bg-background p-4"
    >
      <h2 id={`${id}-heading`} className="flex items-center gap-2 font-semibold">
        <Icon name="sparkles" className="size-4" />
        Draft post
      </h2>
      <input type="hidden" name="intent" value="publish" />
      {messageId ? <input type="hidden" name="messageId" value={messageId} /> : null}
      <div className="grid gap-2 sm:grid-cols-2">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-title`} className="text-sm font-medium">
            Track title
          </label>
          <input
            id={`${id}-title`}
            name="title"
            defaultValue={draft.title}
            aria-invalid={errors?.title ? true : undefined}
            aria-describedby={errors?.title ? `${id}-title-error` : undefined}
            className="h-9 rounded-lg border border-border bg-background px-2 text-foreground"
          />
          {fieldError("title")}
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-artist`} className="text-sm font-medium">
            Artist
          </label>
          <input
            id={`${id}-artist`}
            name="artist"
            defaultValue={draft.artist}
            aria-invalid={errors?.artist ? true : undefined}
            aria-describedby={errors?.artist ? `${id}-artist-error` : undefined}
            className="h-9 rounded-lg border border-border bg-background px-2 text-foreground"
          />
          {fieldError("artist")}
        </div>
      </div>
      <label htmlFor={`${id}-note`} className="text-sm font-medium">
        Post text
      </label>
      <textarea
        id={`${id}-note`}
        name="note"
        rows={3}
        defaultValue={draft.note}
        aria-invalid={errors?.note ? true : undefined}
        aria-describedby={errors?.note ? `${id}-note-error` : undefined}
        className="rounded-lg border border-border bg-background px-3 py-2 text-foreground"
      />
      {fieldError("note")}
      <p className="text-xs text-muted-foreground">
        Shared with your default audience from your privacy settings.
      </p>
      <div className="flex justify-end">
        <Button type="submit" disabled={isPublishing}>
          Publish
        </Button>
      </div>
    </Form>
  );
}
