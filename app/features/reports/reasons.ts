/** Why someone reports a post or comment, as the report form offers it. */
export const REPORT_REASON_LABELS = {
  spam: "Spam or scam",
  harassment: "Harassment or bullying",
  hate: "Hate speech",
  sexual: "Sexual content",
  violence: "Violence or threats",
  copyright: "Copyright infringement",
  other: "Something else",
} as const;

export type ReportReasonKey = keyof typeof REPORT_REASON_LABELS;
export const REPORT_REASON_KEYS = Object.keys(REPORT_REASON_LABELS) as [
  ReportReasonKey,
  ...ReportReasonKey[],
];
