/** What each kind of background job does, as an admin reads it. */
export const JOB_KIND_LABELS: Record<string, string> = {
  "mail.send": "E-mail",
  "feed.fanout": "Fan-out to timelines",
  "unfurl.link": "Link preview",
  "journey.import": "History import",
  "journey.aggregate": "Journey aggregates",
  "settings.data-export": "Data export",
  "federation.deliver": "Federation delivery",
  "federation.event": "Federation: activity to send",
  "federation.queue": "Federation: received activity",
};
