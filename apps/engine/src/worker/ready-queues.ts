// Which tenant queues of one lane have work, and whose turn it is: round-robin over tenants
// (each dispatch pass starts where the last one stopped), the highest priority with work first
// within a tenant. Fed by wake-ups; a queue leaves when a fetch finds it drained.
import { PRIORITIES, type Priority } from '@belfry/core';

export class ReadyQueues {
  private readonly ready = new Map<string, Set<Priority>>(); // tenant -> priorities with work
  private ring: string[] = [];
  private cursor = 0;

  mark(tenantId: string, priority: Priority): void {
    let set = this.ready.get(tenantId);
    if (!set) {
      set = new Set();
      this.ready.set(tenantId, set);
      this.ring.push(tenantId);
    }
    set.add(priority);
  }

  drop(tenantId: string, priority: Priority): void {
    const set = this.ready.get(tenantId);
    if (!set) return;
    set.delete(priority);
    if (!set.size) {
      this.ready.delete(tenantId);
      this.ring = this.ring.filter((t) => t !== tenantId);
    }
  }

  /** One pass over the tenants with work, from where the last pass stopped; the caller may stop early. */
  *turns(): Generator<{ tenantId: string; priority: Priority | undefined }> {
    const tenants = this.ring.length;
    for (let i = 0; i < tenants; i++) {
      const tenantId = this.ring[this.cursor++ % this.ring.length];
      if (!tenantId) continue;
      yield { tenantId, priority: PRIORITIES.find((p) => this.ready.get(tenantId)?.has(p)) };
    }
  }
}
