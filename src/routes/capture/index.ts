import type { App } from "../../app.ts";
import { registerCapturePage } from "./page.ts";
import { registerCaptureSessionView } from "./session.ts";
import { registerCaptureLogo } from "./logo.ts";
import { registerBeforeThumbnail } from "./before-thumbnail.ts";
import { registerDeclareCaptureFile } from "./declare-file.ts";
import { registerReissueCaptureUpload } from "./reissue-upload.ts";
import { registerCompleteCaptureFile } from "./complete-file.ts";
import { registerRemoveCaptureFile } from "./remove-file.ts";
import { registerCompleteCapture } from "./complete.ts";

/** The capture host's page and its JSON routes, in the order the page uses them. */
export function registerCaptureRoutes(app: App) {
  registerCapturePage(app);
  registerCaptureSessionView(app);
  registerCaptureLogo(app);
  registerBeforeThumbnail(app);
  registerDeclareCaptureFile(app);
  registerReissueCaptureUpload(app);
  registerCompleteCaptureFile(app);
  registerRemoveCaptureFile(app);
  registerCompleteCapture(app);
}
