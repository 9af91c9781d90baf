import { data, redirect } from "react-router";
import { ChatScreen } from "~/features/assistant/components/chat-screen";
import type { ChatActionData } from "~/features/assistant/constants";
import { ASSISTANT_MESSAGE_MAX_LENGTH } from "~/features/assistant/constants";
import {
  deleteConversation,
  getConversation,
  listConversations,
  renameConversation,
  runTurn,
  startTurn,
} from "~/features/assistant/conversations.server";
import { getAssistantEngine } from "~/features/assistant/engines.server";
import { chatActionSchema } from "~/features/assistant/schemas";
import { requireUser } from "~/features/auth/guards.server";
import { createPost } from "~/features/posts/posts.server";
import { postInputSchema } from "~/features/posts/schemas";
import { formStrings, invalidForm } from "~/lib/forms";
import { forForm } from "~/lib/route-errors.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/chatbot";

export const meta: Route.MetaFunction = () => [{ title: "Assistant · Soundtrail" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const selected = new URL(request.url).searchParams.get("c");
  const [conversations, conversation] = await Promise.all([
    listConversations({ userId: viewer.id }),
    selected
      ? getConversation({ userId: viewer.id, conversationId: selected })
      : Promise.resolve(null),
  ]);
  return { conversations, conversation, maxLength: ASSISTANT_MESSAGE_MAX_LENGTH };
}

const chatUrl = (conversationId?: string | null) =>
  conversationId ? `/chatbot?c=${encodeURIComponent(conversationId)}` : "/chatbot";

/**
 * The chat page's forms: send a message without JavaScript (the answer is there after the
 * redirect; with JavaScript it streams from /api/assistant instead), rename and delete a
 * conversation, and publish a drafted post through the same service and validation as the
 * composer (the audience is the person's default).
 */
export async function action({ context, request }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  const form = await request.formData();
  const strings = formStrings(form);
  const parsed = chatActionSchema.safeParse(strings);
  if (!parsed.success) throw data("Unknown action", { status: 400 });
  const input = parsed.data;
  // A refusal answers with the chat's shape: the message as typed, when sending it failed.
  const echo =
    input.intent === "send"
      ? { intent: "send", typed: input.message.slice(0, 5000) }
      : { intent: "other" };
  return forForm(echo, async () => {
    switch (input.intent) {
      case "send": {
        const turn = await startTurn({
          userId: viewer.id,
          conversationId: input.conversationId || null,
          message: input.message,
        });
        await runTurn({
          userId: viewer.id,
          turn,
          engine: getAssistantEngine({ chunkDelayMs: 0 }),
          signal: request.signal,
        });
        return redirect(chatUrl(turn.conversationId));
      }
      case "rename":
        await renameConversation({
          userId: viewer.id,
          conversationId: input.conversationId,
          title: input.title,
        });
        return redirect(chatUrl(input.conversationId));
      case "delete":
        await deleteConversation({ userId: viewer.id, conversationId: input.conversationId });
        return redirectWithToast("/chatbot", { type: "success", title: "Conversation deleted" });
      case "publish": {
        const post = postInputSchema.safeParse({
          kind: "track",
          title: strings.title,
          artist: strings.artist,
          note: strings.note,
        });
        if (!post.success) {
          return data<ChatActionData>(
            {
              intent: "publish",
              messageId: input.messageId ?? "",
              ...invalidForm(post.error),
            },
            { status: 400 },
          );
        }
        const { id } = await createPost({ viewerId: viewer.id, input: post.data });
        return redirectWithToast(`/post/${id}`, {
          type: "success",
          title: "Published",
          description: `“${post.data.title}” is on your feed.`,
        });
      }
    }
  });
}

export default function Page({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ChatScreen
      conversations={loaderData.conversations}
      conversation={loaderData.conversation}
      actionData={actionData ?? null}
    />
  );
}
