/** The journey's audiences (the same list as the journey_settings column; safe for the browser). */
export const JOURNEY_AUDIENCE_CHOICES = ["everyone", "followers", "only_me"] as const;
export type JourneyAudienceChoice = (typeof JOURNEY_AUDIENCE_CHOICES)[number];

/** Worded apart from the post audiences on the same page ("Everyone", "Followers", "Only me"). */
export const JOURNEY_AUDIENCE_LABELS: Record<JourneyAudienceChoice, string> = {
  everyone: "Anybody",
  followers: "People who follow me",
  only_me: "Just me",
};

export const JOURNEY_AUDIENCE_HINTS: Record<JourneyAudienceChoice, string> = {
  // Spec §2/§6: a signed-out visitor is sent to sign in before any profile or journey.
  everyone: "Anyone signed in here who can open your profile. Visitors are asked to sign in first.",
  followers: "People you accepted as followers.",
  only_me: "Nobody but you.",
};
