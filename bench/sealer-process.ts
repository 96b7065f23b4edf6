/**
 * The bench's sealer: a process of its own started with the sealer's V8 options (sealer/src/node-flags.ts),
 * as the container starts it, that runs each job its parent sends and answers how long it took, the CPU
 * time of all its threads, and the sealer's own timings. The bench's baselines stay in the parent.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSigningKey } from "../sealer/src/c2pa/cose.ts";
import { signingPool } from "../sealer/src/c2pa/signing-pool.ts";
import { crlSource } from "../sealer/src/revocation/crl-source.ts";
import { runSealJob } from "../sealer/src/seal-job.ts";
import { warmOpenssl } from "../sealer/src/tsa/confirm-with-openssl.ts";
import { simulatedAuthority } from "../sealer/src/tsa/simulated-authority.ts";
import { sealIdentity } from "../sealer/src/seal/seal-identity.ts";
import type { SealJob, SealResult } from "../shared/sealer-protocol.ts";

export interface JobRun {
  ms: number;
  cpuMs: number;
  result: SealResult;
}

const pki = process.argv[2]!;
const pem = (name: string) => readFileSync(join(pki, name), "utf8");
const context = {
  key: loadSigningKey(pem("c2pa-signer.pk8")),
  chainDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)],
  trustAnchorPem: pem("c2pa-root.pem"),
  seal: sealIdentity(pem("proof-seal.pk8"), [new Uint8Array(new X509Certificate(pem("proof-seal.pem")).raw)]),
  authority: simulatedAuthority(pki, "tsa-test", "Simulated"),
  crls: crlSource({ localPkiDir: pki }),
};
// As the sealer does at start (main.ts): its signing threads loaded and its openssl runner started before the first job.
signingPool().warm();
warmOpenssl();

process.on("message", async (job: SealJob) => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await runSealJob(context, job);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  process.send!({ ms, cpuMs: (used.user + used.system) / 1000, result } satisfies JobRun);
});
process.on("disconnect", () => process.exit(0));
process.send!("ready");
