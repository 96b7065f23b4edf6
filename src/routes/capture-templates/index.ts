import type { App } from "../../app.ts";
import { registerCreateTemplate } from "./create.ts";
import { registerListTemplates } from "./list.ts";
import { registerGetTemplate } from "./get.ts";
import { registerUpdateTemplate } from "./update.ts";
import { registerDuplicateTemplate } from "./duplicate.ts";
import { registerArchiveTemplate } from "./delete.ts";

export function registerCaptureTemplateRoutes(app: App) {
  registerCreateTemplate(app);
  registerListTemplates(app);
  registerGetTemplate(app);
  registerUpdateTemplate(app);
  registerDuplicateTemplate(app);
  registerArchiveTemplate(app);
}
