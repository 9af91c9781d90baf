import { data, Link } from "react-router";
import { Icon } from "~/components/ui/icon";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/features/auth/guards.server";
import { Composer } from "~/features/posts/components/composer";
import { parsePostForm } from "~/features/posts/post-form.server";
import { getOwnPost, updatePost } from "~/features/posts/posts.server";
import { redirectWithToast } from "~/lib/toast.server";
import type { Route } from "./+types/post-edit";

export const meta: Route.MetaFunction = () => [{ title: "Edit post · Soundtrail" }];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const viewer = requireUser(context, request);
  const post = await getOwnPost({ viewerId: viewer.id, postId: params.id });
  return { post };
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const viewer = requireUser(context, request);
  // Before the upload is read: someone else's post costs no image processing.
  await getOwnPost({ viewerId: viewer.id, postId: params.id });
  const parsed = await parsePostForm(request);
  if (!parsed.ok) {
    const { form: _form, ...failure } = parsed;
    return data(failure, { status: 400 });
  }
  await updatePost({
    viewerId: viewer.id,
    postId: params.id,
    input: parsed.input,
    image: parsed.image,
    removeImage: parsed.removeImage,
  });
  return redirectWithToast(`/post/${params.id}`, { type: "success", title: "Post updated" });
}

export default function EditPost({ loaderData, actionData }: Route.ComponentProps) {
  const { post } = loaderData;
  const values = actionData?.values ?? {
    kind: post.kind,
    title: post.title,
    artist: post.artist ?? "",
    album: post.album ?? "",
    linkUrl: post.linkUrl ?? "",
    note: post.note,
    mood: post.mood ?? "",
    audience: post.audience,
  };
  return (
    <>
      <p className="mb-4">
        <Link
          to={`/post/${post.id}`}
          className="inline-flex items-center gap-1 text-sm font-medium text-muted-foreground hover:text-foreground"
        >
          <Icon name="arrow-left" className="size-4" />
          Back to the post
        </Link>
      </p>
      <PageHeader title="Edit post">Change what it says or who can see it.</PageHeader>
      <Composer
        action={`/post/${post.id}/edit`}
        mode="edit"
        failure={actionData}
        values={values}
        currentImage={post.image}
        cancelHref={`/post/${post.id}`}
      />
    </>
  );
}
