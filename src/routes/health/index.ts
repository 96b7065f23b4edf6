import type { App } from "../../app.ts";
import { registerGetHealth } from "./get.ts";
import { registerGetHealthDetails } from "./details.ts";

export function registerHealthRoutes(app: App) {
  registerGetHealth(app);
  registerGetHealthDetails(app);
}
