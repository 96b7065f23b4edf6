import { test } from "node:test";
import assert from "node:assert/strict";
import { PhaseClock } from "../src/phase-clock.ts";
import { runSealJob } from "../src/seal-job.ts";
import { SealTimingsSchema } from "../../shared/sealer-protocol.ts";
import { sealContext } from "./support.ts";
import { job } from "./storage-stand-in.ts";

test("a phase's wall time counts overlapping files once; its file time adds them up", () => {
  const clock = new PhaseClock();
  clock.record("download", 0, 100);
  clock.record("download", 50, 150);
  clock.record("download", 200, 210);
  clock.record("upload", 10, 20);
  clock.countAuthorityCall("proof_authority");
  const { phases, authority_calls } = clock.timings();
  assert.deepEqual(phases.download, { wall_ms: 160, file_ms: 210 });
  assert.deepEqual(phases.upload, { wall_ms: 10, file_ms: 10 });
  assert.equal(phases.signing, undefined, "a phase nothing ran in is absent");
  assert.deepEqual(authority_calls, { proof_authority: 1, signature_authority: 0 });
});

test("a sealed job says where its time went, in every phase, and how many timestamps it bought", async () => {
  const result = await runSealJob(
    sealContext(),
    job([
      { name: "photo.jpg", type: "image/jpeg" },
      { name: "photo.png", type: "image/png" },
    ]),
  );
  assert.equal(result.status, "sealed");
  if (result.status !== "sealed") return;
  const timings = SealTimingsSchema.parse(result.timings);
  assert.deepEqual(Object.keys(timings.phases).sort(), ["download", "signing", "timestamps", "upload", "verification"]);
  assert.deepEqual(
    timings.authority_calls,
    { proof_authority: 3, signature_authority: 0 },
    "one per file's signature and one for the manifest, all to the one authority",
  );
  for (const figure of Object.values(timings.phases)) assert.ok(figure.wall_ms <= timings.total_ms && figure.wall_ms <= figure.file_ms);
});
