/** The federation feature's public server entry (ActivityPub through Fedify; ADR 038). */
export { deliverJob, queueDeliveries } from "./deliver.server";
export {
  federationContext,
  getFederation,
  isFederationEnabled,
  resetFederation,
} from "./federation.server";
export { handleFederationRequest, isFederationRequest } from "./handler.server";
export { DatabaseKvStore } from "./kv.server";
export { looksLikeRemotePerson, lookupRemotePerson } from "./lookup.server";
export { federationEventJob } from "./outbound.server";
export { federationQueueJob, JobsMessageQueue } from "./queue.server";
export { findRemoteByUri, upsertRemoteActor } from "./remote.server";
