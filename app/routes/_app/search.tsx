import { Search as SearchIcon } from "lucide-react";
import { Form } from "react-router";
import { Button } from "~/components/ui/button";
import { EmptyState } from "~/components/ui/empty-state";
import { PageHeader } from "~/components/ui/page-header";
import { requireUser } from "~/lib/guards.server";
import type { Route } from "./+types/search";

export const meta: Route.MetaFunction = () => [{ title: "Search · Soundtrail" }];

export function loader({ context, request }: Route.LoaderArgs) {
  requireUser(context, request);
  const q = (new URL(request.url).searchParams.get("q") ?? "").trim().slice(0, 200);
  return { q };
}

export default function Search({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <PageHeader title="Search">Find people, artists, albums and tracks.</PageHeader>
      <Form method="get" role="search" className="mb-6 flex gap-2">
        <label htmlFor="q" className="sr-only">
          Search
        </label>
        <input
          id="q"
          name="q"
          type="search"
          defaultValue={loaderData.q}
          maxLength={200}
          placeholder="Search Soundtrail"
          className="h-10 flex-1 rounded-lg border border-border bg-background px-3"
        />
        <Button type="submit">Search</Button>
      </Form>
      <EmptyState icon={SearchIcon} title={loaderData.q ? "No results" : "Nothing to search yet"}>
        {loaderData.q
          ? `Nothing on this Soundtrail matches “${loaderData.q}” yet.`
          : "Once people share music, you can search it here."}
      </EmptyState>
    </>
  );
}
