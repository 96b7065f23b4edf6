import type { App } from "../../app.ts";
import { registerGetSettings } from "./get.ts";
import { registerUpdateSettings } from "./update.ts";

export function registerSettingsRoutes(app: App) {
  registerGetSettings(app);
  registerUpdateSettings(app);
}
