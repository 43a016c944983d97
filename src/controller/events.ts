/**
 * Events about cluster-scoped objects (Kartas) as client-go's events.k8s.io/v1 recorder writes them, which
 * upstream's operator uses: reportingController `karta-controller`, reportingInstance
 * `karta-controller-<hostname>`, the object in `regarding`, the Event in the `default` namespace (the
 * object has none), named `<object>.<time in hex nanoseconds>`. A failure to record is logged, never thrown:
 * an Event is a courtesy, not part of the reconcile.
 */
import { hostname } from "node:os";
import type { KubernetesObject } from "@kubernetes/client-node";
import { microTime, type KubeClient } from "./client.js";
import type { Logger } from "./log.js";

export const REPORTING_CONTROLLER = "karta-controller";

/** events.k8s.io/v1 limits the note to 1 kB. */
const MAX_NOTE = 1024;

export class EventRecorder {
  private readonly instance = `${REPORTING_CONTROLLER}-${hostname()}`;
  /** Nanoseconds within the millisecond, so two Events of one millisecond get two names. */
  private sequence = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
  ) {}

  /** Records a Warning about `regarding`; `action` says what the controller was doing. */
  async warning(regarding: KubernetesObject, reason: string, action: string, note: string): Promise<void> {
    const now = new Date();
    const namespace = regarding.metadata?.namespace || "default";
    const name = `${regarding.metadata?.name ?? "object"}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(this.sequence++ % 1_000_000)).toString(16)}`;
    try {
      await this.client.create(`/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name, namespace },
        eventTime: microTime(now),
        type: "Warning",
        reason,
        action,
        note: note.length > MAX_NOTE ? `${note.slice(0, MAX_NOTE - 3)}...` : note,
        reportingController: REPORTING_CONTROLLER,
        reportingInstance: this.instance,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          name: regarding.metadata?.name,
          uid: regarding.metadata?.uid,
          resourceVersion: regarding.metadata?.resourceVersion,
          ...(regarding.metadata?.namespace ? { namespace: regarding.metadata.namespace } : {}),
        },
      });
    } catch (err) {
      this.log("error", "cannot record an event", { reason, regarding: regarding.metadata?.name, err: String((err as Error)?.message ?? err) });
    }
  }
}
