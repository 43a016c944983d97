/** The texts the build embeds (scripts/build-playground.mjs). */
declare module "virtual:bundled" {
  /** A bundled definition and, where the project has one, an example workload and its pods. */
  export interface BundledDefinition {
    /** Path under definitions/, e.g. kubeflow.org/v1/PyTorchJob.yaml. */
    id: string;
    kind: string;
    file: string;
    text: string;
    example?: { objectFile: string; object: string; podsFile: string; pods: string };
  }
  export const definitions: BundledDefinition[];
  export const customizations: { file: string; text: string }[];
}
