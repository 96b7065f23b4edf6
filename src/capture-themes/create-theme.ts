import type { DomainContext } from "../domain/context.ts";
import { newId } from "../lib/ids.ts";
import { insertTheme } from "../storage/capture-themes.ts";

export interface NewTheme {
  name: string;
  primary_color: string;
  locale: string;
}

/** Creates a theme; the organization's first one becomes its default (decided by the insert itself). */
export async function createCaptureTheme({ ctx, input }: { ctx: Pick<DomainContext, "db" | "caller" | "now">; input: NewTheme }) {
  const now = ctx.now.toISOString();
  return insertTheme(ctx.db, {
    id: newId("thm"),
    organizationId: ctx.caller.organizationId,
    name: input.name,
    primaryColor: input.primary_color.toLowerCase(),
    locale: input.locale,
    createdAt: now,
    updatedAt: now,
  });
}
