import type { App } from "../../app.ts";
import { registerCreateEndpoint } from "./create.ts";
import { registerListEndpoints } from "./list.ts";
import { registerGetEndpoint } from "./get.ts";
import { registerUpdateEndpoint } from "./update.ts";
import { registerDeleteEndpoint } from "./delete.ts";
import { registerRotateSecret } from "./rotate-secret.ts";
import { registerSendTestEvent } from "./send-test-event.ts";

export function registerWebhookEndpointRoutes(app: App) {
  registerCreateEndpoint(app);
  registerListEndpoints(app);
  registerGetEndpoint(app);
  registerUpdateEndpoint(app);
  registerDeleteEndpoint(app);
  registerRotateSecret(app);
  registerSendTestEvent(app);
}
