import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";

const stateDir = mkdtempSync(join(tmpdir(), "proof-traces-"));
let stack: Stack | undefined;
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("npm run dev measures the service, not the simulator's recorder", () => {
  it("keeps no local trace store, so API calls cost what the service does (docs/adr/0026)", async () => {
    stack = await startStack({ stateDir });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${stack.baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${stack.testKey}` } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    expect(existsSync(join(stateDir, "state", "v3", "d1"))).toBe(true);
    // Wrangler's recorder keeps its traces here when it is on (X_LOCAL_OBSERVABILITY=true).
    expect(existsSync(join(stateDir, "state", "v3", "observability"))).toBe(false);
  });
});
