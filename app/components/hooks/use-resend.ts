import { useCallback, useEffect, useRef, useState } from "react";
import { useActionData, useNavigation } from "react-router";
import { showToast } from "~/components/ui/toaster";
import {
  isNetworkError,
  isNetworkFailure,
  type NetworkFailure,
  networkFailure,
  nextSendStep,
} from "~/lib/resilient-send";

/** Where a send that the network let down stands (ADR 037). */
export type ResendState = "ok" | "offline" | "retrying" | "failed";

function isOnline() {
  return typeof navigator === "undefined" || navigator.onLine !== false;
}

/**
 * Sends again, by itself, what the network let down: each new `failure` (a NetworkFailure
 * object) counts one; offline it waits for the connection, online it retries after 1, 2 and
 * 5 s, then it gives up ("failed") until the connection comes back or `retryNow` is called.
 * A `null` failure (an answer came) starts the count again.
 */
export function useResend(failure: NetworkFailure | null | undefined, resend: () => void) {
  const [state, setState] = useState<ResendState>("ok");
  const failures = useRef(0);
  const resendRef = useRef(resend);
  resendRef.current = resend;
  const retryNow = useCallback(() => {
    setState("retrying");
    resendRef.current();
  }, []);

  useEffect(() => {
    if (!failure) {
      failures.current = 0;
      setState("ok");
      return;
    }
    failures.current += 1;
    const step = nextSendStep(failures.current, isOnline());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onOnline = () => {
      // The connection came back before a pending retry: this send replaces it (never twice).
      if (timer) clearTimeout(timer);
      setState("retrying");
      resendRef.current();
    };
    // Whatever the step, the connection coming back sends it at once.
    window.addEventListener("online", onOnline, { once: true });
    if (step.kind === "wait-online") setState("offline");
    else if (step.kind === "give-up") setState("failed");
    else {
      setState("retrying");
      timer = setTimeout(() => {
        window.removeEventListener("online", onOnline);
        resendRef.current();
      }, step.delayMs);
    }
    return () => {
      window.removeEventListener("online", onOnline);
      if (timer) clearTimeout(timer);
    };
  }, [failure]);

  return { state, retryNow };
}

type Outcome<T> = ({ ok: true } & T) | { ok: false; message?: string };

/**
 * POSTs a form to a resource route with `fetch` (not a fetcher: a fetcher's network error
 * replaces the page with the error screen), keeping the form as `pending` — what the button
 * shows — until the server answers. A network failure keeps it and sends it again (useResend);
 * a refusal drops it and says why in a toast titled `failureTitle`. The latest submit wins.
 * Only for sends that are safe to repeat (they name the state they want).
 */
export function useResilientAction<T extends object>(
  action: string,
  failureTitle: string,
  onSuccess: (data: { ok: true } & T) => void,
) {
  const [pending, setPending] = useState<FormData | null>(null);
  const [failure, setFailure] = useState<NetworkFailure | null>(null);
  const sequence = useRef(0);
  const onSuccessRef = useRef(onSuccess);
  onSuccessRef.current = onSuccess;

  const submit = useCallback(
    async (form: FormData) => {
      const mine = ++sequence.current;
      setPending(form);
      let outcome: Outcome<T> | null = null;
      try {
        const response = await fetch(action, {
          method: "POST",
          body: form,
          headers: { Accept: "application/json" },
          credentials: "same-origin",
        });
        if (mine !== sequence.current) return;
        if (response.status === 502 || response.status === 503 || response.status === 504) {
          // A proxy or an overloaded server did not take it: as good as no answer.
          setFailure(networkFailure());
          return;
        }
        outcome = (await response.json().catch(() => null)) as Outcome<T> | null;
      } catch (error) {
        if (mine !== sequence.current) return;
        if (isNetworkError(error)) {
          setFailure(networkFailure());
          return;
        }
        outcome = null;
      }
      if (mine !== sequence.current) return;
      setPending(null);
      setFailure(null);
      if (outcome?.ok) onSuccessRef.current(outcome);
      else {
        showToast({
          type: "error",
          title: failureTitle,
          description: outcome?.message ?? "Something went wrong. Please try again.",
        });
      }
    },
    [action, failureTitle],
  );

  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  const { state, retryNow } = useResend(failure, () => {
    if (pendingRef.current) void submit(pendingRef.current);
  });
  return { submit, pending, sendState: failure ? state : ("ok" as const), retryNow };
}

/**
 * A form that posts to its own page's route action (a `<Form>`, as the settings pages have),
 * whose `clientAction` answers a NetworkFailure when the network failed (ADR 037). A page's
 * forms share its action data, so a failure belongs to the form that was submitted last:
 * `isMine` tells that form's data apart (its `intent`, or a row's intent and id).
 *
 * With `repeat` (a save that names the state it wants, so sending it twice changes nothing) it
 * is sent again by itself, as `useResend` says; without (a send that mails a link or texts a
 * code, or one that needs a password typed for it), it waits for the person's Retry. Either
 * way the form keeps what was typed: it is submitted again as it stands, by the same button.
 */
export function useFormResend(
  isMine: string | ((form: FormData) => boolean),
  { repeat = true }: { repeat?: boolean } = {},
) {
  const formRef = useRef<HTMLFormElement>(null);
  const actionData = useActionData();
  const navigation = useNavigation();
  const matches =
    typeof isMine === "string" ? (form: FormData) => form.get("intent") === isMine : isMine;
  const matchesRef = useRef(matches);
  matchesRef.current = matches;
  const [wasMine, setWasMine] = useState(false);
  useEffect(() => {
    if (navigation.formData) setWasMine(matchesRef.current(navigation.formData));
  }, [navigation.formData]);
  // The button that sent it (a row's "Accept" or "Decline") sends it again.
  const submitter = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    const onSubmit = (event: SubmitEvent) => {
      submitter.current = event.submitter;
    };
    form.addEventListener("submit", onSubmit, { capture: true });
    return () => form.removeEventListener("submit", onSubmit, { capture: true });
  }, []);
  const resubmit = useCallback(() => {
    const form = formRef.current;
    if (!form) return;
    const button = submitter.current;
    const isOwnButton =
      (button instanceof HTMLButtonElement || button instanceof HTMLInputElement) &&
      button.form === form;
    form.requestSubmit(isOwnButton ? button : undefined);
  }, []);
  const failure = wasMine && isNetworkFailure(actionData) ? actionData : null;
  const auto = useResend(repeat ? failure : null, resubmit);
  const retryNow = useCallback(() => resubmit(), [resubmit]);
  const isWaiting = failure !== null;
  if (!repeat) {
    return {
      formRef,
      isWaiting,
      state: isWaiting ? ("failed" as const) : ("ok" as const),
      retryNow,
    };
  }
  return {
    formRef,
    isWaiting,
    state: isWaiting ? auto.state : ("ok" as const),
    retryNow: auto.retryNow,
  };
}

/**
 * The same for a form of a fetcher posting to a page's route action (the security settings):
 * `data` is the fetcher's, a NetworkFailure when the network failed. What the form shows
 * comes from the last real answer (`answer`), so a failure never drops the step it was at.
 */
export function useFetcherFormResend<T>(
  data: T | NetworkFailure | undefined,
  { repeat = true }: { repeat?: boolean } = {},
) {
  const formRef = useRef<HTMLFormElement>(null);
  const [answer, setAnswer] = useState<T | undefined>(undefined);
  const failure = isNetworkFailure(data) ? data : null;
  useEffect(() => {
    if (!isNetworkFailure(data)) setAnswer(data);
  }, [data]);
  const resubmit = useCallback(() => formRef.current?.requestSubmit(), []);
  const auto = useResend(repeat ? failure : null, resubmit);
  const isWaiting = failure !== null;
  const shown = isNetworkFailure(data) ? answer : data;
  if (!repeat) {
    return {
      formRef,
      answer: shown,
      isWaiting,
      state: isWaiting ? ("failed" as const) : ("ok" as const),
      retryNow: resubmit,
    };
  }
  return {
    formRef,
    answer: shown,
    isWaiting,
    state: isWaiting ? auto.state : ("ok" as const),
    retryNow: auto.retryNow,
  };
}
