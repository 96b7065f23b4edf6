import { describe, expect, it } from "vitest";
import { call, CAPTURE } from "./support/client.ts";

describe("static assets of public/", () => {
  it("serves the capture page's modules and styles", async () => {
    for (const path of ["/capture/app.js", "/capture/style.css", "/robots.txt"]) {
      const response = await call(`${CAPTURE}${path}`);
      await response.arrayBuffer();
      expect(response.status, path).toBe(200);
    }
  });

  it("does not serve what public/.assetsignore keeps out: the capture page's tsconfig.json and JSDoc types", async () => {
    for (const path of ["/capture/nothing.js", "/capture/tsconfig.json", "/capture/types.js", "/.assetsignore"]) {
      const response = await call(`${CAPTURE}${path}`);
      await response.arrayBuffer();
      expect(response.status, path).toBe(404);
    }
  });
});
