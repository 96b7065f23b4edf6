import type { DomainContext } from "../domain/context.ts";
import { updateTemplate } from "../storage/capture-templates.ts";
import { templateOrThrow } from "./find-template.ts";

/** Archives a template: it starts no session any more, proofs made with it keep it. Archiving twice is harmless. */
export async function archiveCaptureTemplate({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: { id: string } }) {
  const template = await templateOrThrow({ ctx, input });
  if (template.archivedAt === null) {
    const now = ctx.now.toISOString();
    await updateTemplate(ctx.db, template.id, { archivedAt: now, updatedAt: now });
    template.archivedAt = now;
    template.updatedAt = now;
  }
  return template;
}
