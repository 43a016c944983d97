/** Built-in interpretation of multicluster.x-k8s.io/v1alpha1 ServiceImport. */
import type { DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { namespaceOf, ok, stringField } from "./common.js";

/** The Service Karmada derives for an imported service. */
export function derivedServiceName(serviceName: string): string {
  return `derived-${serviceName}`;
}

/** InterpretDependency: the derived Service and its EndpointSlices (by the service-name label). */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  const derived = derivedServiceName(stringField(obj, "metadata", "name"));
  const ns = namespaceOf(obj);
  const service: DependentObjectReference = { apiVersion: "v1", kind: "Service" };
  const slices: DependentObjectReference = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice" };
  if (ns !== "") {
    service.namespace = ns;
    slices.namespace = ns;
  }
  service.name = derived;
  slices.labelSelector = { matchLabels: { "kubernetes.io/service-name": derived } };
  return ok([service, slices]);
}
