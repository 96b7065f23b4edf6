import type { App } from "../../app.ts";
import { registerListDeliveries } from "./list.ts";
import { registerGetDelivery } from "./get.ts";
import { registerRetryDelivery } from "./retry.ts";

export function registerWebhookDeliveryRoutes(app: App) {
  registerListDeliveries(app);
  registerGetDelivery(app);
  registerRetryDelivery(app);
}
