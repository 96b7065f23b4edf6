import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sealerEnvVars } from "../../src/sealing/sealer-env.ts";
import { SEALER_SETTINGS } from "../../shared/sealer-settings.ts";

describe("the sealer container's environment", () => {
  it("carries every sealer setting the Worker has, so live proofs never fall back to the local stand-ins", () => {
    const configured = Object.fromEntries(SEALER_SETTINGS.map((name) => [name, `value of ${name}`]));
    const vars = sealerEnvVars({ ...env, SEALER_SECRET: "shared", ...configured });
    expect(vars).toEqual({ SEALER_PORT: "8788", SEALER_SECRET: "shared", ...configured });
  });

  it("leaves out what is not set", () => {
    expect(sealerEnvVars({ ...env, SEALER_SECRET: "shared", TSA_URL: "" })).toEqual({ SEALER_PORT: "8788", SEALER_SECRET: "shared" });
  });
});

describe("the sealer containers", () => {
  it("spread proofs over as many instances as wrangler.toml allows, a proof always to the same one", async () => {
    const { SEALER_INSTANCES, sealerInstanceName } = await import("../../src/sealing/sealer-client.ts");
    const names = new Set(Array.from({ length: 200 }, (_, i) => sealerInstanceName(`prf_${i.toString(36)}x${i * 7919}`)));
    expect(names.size).toBe(SEALER_INSTANCES);
    expect(sealerInstanceName("prf_abc")).toBe(sealerInstanceName("prf_abc"));
  });
});
