/**
 * A Kubernetes object as the API server sends it, in JSON: the fields every object has. Karta reads
 * objects as plain JSON (times are RFC 3339 strings), never as generated models.
 */
import type { ObjectMeta as WrittenMeta, OwnerReference } from "../scheduling/types.js";

export type { OwnerReference };

/** A managedFields entry (server-side apply's record of who set which fields). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

/** metadata of an object as the server sends it: what Karta writes (src/scheduling) and what the server sets. */
export interface ObjectMeta extends WrittenMeta {
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Any object: apiVersion, kind and metadata (the rest is read with jq or as typed by its reader). */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}
