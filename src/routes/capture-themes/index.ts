import type { App } from "../../app.ts";
import { registerCreateTheme } from "./create.ts";
import { registerListThemes } from "./list.ts";
import { registerGetTheme } from "./get.ts";
import { registerUpdateTheme } from "./update.ts";
import { registerUploadThemeLogo } from "./upload-logo.ts";
import { registerArchiveTheme } from "./delete.ts";

export function registerCaptureThemeRoutes(app: App) {
  registerCreateTheme(app);
  registerListThemes(app);
  registerGetTheme(app);
  registerUpdateTheme(app);
  registerUploadThemeLogo(app);
  registerArchiveTheme(app);
}
