import { useEffect, useRef } from "react";
import { clearAllDrafts } from "./drafts";

const CHANNEL = "soundtrail-auth";

interface AuthMessage {
  viewerId: string | null;
}

/**
 * Keeps every open tab of this browser in step with sign-in and sign-out: the tab where it
 * happened announces the new viewer; the others go to /feed (signed in) or /auth/login. Drafts
 * kept on this device (ADR 037) go with a sign-out or a change of person: the next person at
 * this browser must not find them.
 */
export function useAuthBroadcast(viewerId: string | null) {
  const current = useRef(viewerId);
  const channel = useRef<BroadcastChannel | null>(null);

  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const bc = new BroadcastChannel(CHANNEL);
    channel.current = bc;
    bc.onmessage = (event: MessageEvent<AuthMessage>) => {
      const next = event.data?.viewerId ?? null;
      if (next === current.current) return;
      if (current.current !== null) clearAllDrafts();
      current.current = next;
      window.location.assign(next ? "/feed" : "/auth/login");
    };
    return () => {
      bc.close();
      channel.current = null;
    };
  }, []);

  useEffect(() => {
    if (viewerId === current.current) return;
    if (current.current !== null) clearAllDrafts();
    current.current = viewerId;
    channel.current?.postMessage({ viewerId } satisfies AuthMessage);
  }, [viewerId]);
}
