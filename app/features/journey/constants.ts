/** The journey's audiences (the same list as the journey_settings column; safe for the browser). */
export const JOURNEY_AUDIENCE_CHOICES = ["everyone", "followers", "only_me"] as const;
export type JourneyAudienceChoice = (typeof JOURNEY_AUDIENCE_CHOICES)[number];

export const JOURNEY_AUDIENCE_LABELS: Record<JourneyAudienceChoice, string> = {
  everyone: "Everyone",
  followers: "Followers",
  only_me: "Only me",
};

export const JOURNEY_AUDIENCE_HINTS: Record<JourneyAudienceChoice, string> = {
  everyone: "Anyone who can open your profile, signed in or not.",
  followers: "People you accepted as followers.",
  only_me: "Nobody but you.",
};

/** How the privacy message names the audience: "… shares their journey with followers". */
export const JOURNEY_AUDIENCE_PHRASES: Record<JourneyAudienceChoice, string> = {
  everyone: "everyone",
  followers: "their followers only",
  only_me: "nobody: it is private",
};
