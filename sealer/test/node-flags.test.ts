import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SEALER_NODE_FLAGS } from "../src/node-flags.ts";

test("the container starts the sealer with the V8 options the bench measures it with", () => {
  const dockerfile = readFileSync(join(import.meta.dirname, "../Dockerfile"), "utf8");
  const cmd = dockerfile.split("\n").find((line) => line.startsWith("CMD "));
  assert.deepEqual(JSON.parse(cmd!.slice(4)), ["node", ...SEALER_NODE_FLAGS, "sealer/src/main.ts"]);
});
