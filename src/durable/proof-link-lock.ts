import { DurableObject } from "cloudflare:workers";

/**
 * One instance per "before" proof: the first capture session to complete against it wins, for ever.
 * The same session claiming again is still the winner (a retried completion); any other one loses.
 */
export class ProofLinkLock extends DurableObject {
  claim(sessionId: string): { won: boolean } {
    const holder = this.ctx.storage.kv.get<string>("session");
    if (holder === undefined) {
      this.ctx.storage.kv.put("session", sessionId);
      return { won: true };
    }
    return { won: holder === sessionId };
  }

  /** Gives the before back when its holder can never complete (it expired as it was completing). */
  release(sessionId: string): void {
    if (this.ctx.storage.kv.get<string>("session") === sessionId) this.ctx.storage.kv.delete("session");
  }
}
