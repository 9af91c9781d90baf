import { useCallback, useEffect, useRef, useState } from "react";

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) ||
    target.closest("[role=dialog]") !== null
  );
}

/**
 * The composer's folding: a one-line prompt that opens into the form (on click or "n" anywhere
 * outside a field) and folds away again on Cancel or Escape, keeping what was typed as a draft
 * ("Continue your post…"). Once opened, the form stays mounted so the draft survives folding.
 * Focus moves to the title when it opens and back to the prompt when it folds. The refs it
 * returns go on the form, its title input and the prompt.
 */
export function useComposerFold(options: {
  initiallyExpanded: boolean;
  hasErrors: boolean;
  withShortcut: boolean;
}) {
  const { withShortcut, hasErrors } = options;
  const formRef = useRef<HTMLFormElement>(null);
  const titleRef = useRef<HTMLInputElement>(null);
  const [expanded, setExpandedState] = useState(options.initiallyExpanded);
  // Once opened, the form stays in the page while folded away, so Cancel or Escape keep the draft.
  const [isMounted, setMounted] = useState(expanded);
  const [hasDraft, setHasDraft] = useState(false);
  const expandedRef = useRef(expanded);
  const promptRef = useRef<HTMLAnchorElement>(null);
  const focusTitle = useRef(false);
  const focusPrompt = useRef(false);
  const setExpanded = useCallback((value: boolean) => {
    expandedRef.current = value;
    if (value) setMounted(true);
    setExpandedState(value);
  }, []);
  const fold = () => {
    const form = formRef.current;
    const fields = form
      ? ["title", "artist", "album", "linkUrl", "note"].map(
          (name) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? "",
        )
      : [];
    setHasDraft(fields.some((value) => value.trim() !== ""));
    focusPrompt.current = true;
    setExpanded(false);
  };
  useEffect(() => {
    if (hasErrors) setExpanded(true);
  }, [hasErrors, setExpanded]);
  useEffect(() => {
    if (expanded && focusTitle.current) {
      focusTitle.current = false;
      titleRef.current?.focus();
    }
    if (!expanded && focusPrompt.current) {
      focusPrompt.current = false;
      promptRef.current?.focus();
    }
  }, [expanded]);
  useEffect(() => {
    if (!withShortcut) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "n" || event.ctrlKey || event.metaKey || event.altKey) return;
      if (isTyping(event.target)) return;
      event.preventDefault();
      if (expandedRef.current && titleRef.current) {
        titleRef.current.focus();
        titleRef.current.scrollIntoView({ block: "center" });
      } else {
        focusTitle.current = true;
        setExpanded(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [withShortcut, setExpanded]);

  /** After a successful post: an empty form, no draft, and folded again if it started folded. */
  const startFreshDraft = useCallback(
    (fold: boolean) => {
      formRef.current?.reset();
      setHasDraft(false);
      if (fold) setExpanded(false);
    },
    [setExpanded],
  );
  const openAndFocusTitle = useCallback(() => {
    focusTitle.current = true;
    setExpanded(true);
  }, [setExpanded]);
  return {
    expanded,
    isMounted,
    hasDraft,
    setHasDraft,
    startFreshDraft,
    setExpanded,
    fold,
    openAndFocusTitle,
    promptRef,
    formRef,
    titleRef,
  };
}
