import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import type { Env } from "../../src/env.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { consumeSealingMessages } from "../../src/sealing/consumer.ts";
import { callSealer, TransientSealingError } from "../../src/sealing/sealer-client.ts";
import { parseProtocolMessage, SEALER_PROTOCOL_VERSION, SealRequestSchema, type SealJob } from "../../shared/sealer-protocol.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";

/** The Worker's env with a sealer process at a URL, so callSealer goes through the (stubbed) global fetch. */
const sealerEnv = { ...env, SEALER_URL: "https://sealer.test" } as Env;

/** The sealer answers `answer(job)` to every `POST /seal`; the requests it received are kept. */
function sealerAnswering(answer: (job: SealJob) => Response) {
  const received: Request[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    received.push(request.clone());
    const parsed = parseProtocolMessage(SealRequestSchema, await request.text());
    if (!parsed.ok) throw new Error(`the Worker sent a job the protocol refuses: ${parsed.problem}`);
    return answer(parsed.value);
  });
  return received;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const versioned = (body: object) => ({ protocol_version: SEALER_PROTOCOL_VERSION, ...body });

const job: SealJob = {
  proof: {
    id: "prf_protocol",
    organization_id: "org_protocol",
    mode: "test",
    external_reference: "ref",
    party: "provider",
    stage: null,
    category: null,
    location_reference: null,
    session_id: "cps_protocol",
    compare_to: null,
    compare_to_manifest_sha256: null,
    template_sha256: "0".repeat(64),
  },
  files: [
    {
      id: "med_protocol",
      step_id: "photos",
      position: 1,
      kind: "photo",
      content_type: "image/jpeg",
      size: 10,
      sha256: "c".repeat(64),
      captured_at: "2026-11-22T10:00:00.000Z",
      capture_context: null,
      source: { url: "https://storage.test/original" },
      destination: { url: "https://storage.test/signed", method: "PUT", headers: {} },
      discard: { url: "https://storage.test/signed", method: "DELETE", headers: {} },
    },
  ],
  deadline: "2026-11-22T10:05:00.000Z",
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the sealer protocol, Worker side", () => {
  it("sends a job the protocol accepts, with its version, and seals the proof from a versioned answer", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    const received = sealerAnswering((sealJob) => json(200, versioned(sealedAnswer(sealJob))));
    const { deps } = dependencies((sealJob) => callSealer(sealerEnv, sealJob));

    expect(await sealProof(deps, proofId)).toBe("sealed");

    expect(received).toHaveLength(1);
    expect(new URL(received[0]!.url).pathname).toBe("/seal");
    expect(JSON.parse(await received[0]!.text()).protocol_version).toBe(SEALER_PROTOCOL_VERSION);
  });

  it("returns a failed answer as the sealer gave it, without the envelope's version", async () => {
    const failed = { status: "failed", code: "file_hash_mismatch", message: "The bytes differ.", file_id: "med_protocol" } as const;
    sealerAnswering(() => json(200, versioned(failed)));
    expect(await callSealer(sealerEnv, job)).toEqual(failed);
  });

  it.each([
    [
      "not JSON",
      () => new Response('{"status":"sealed"', { status: 200 }),
      new RegExp(`^sealer answered what protocol version ${SEALER_PROTOCOL_VERSION} does not allow: not JSON`),
    ],
    [
      "another version",
      () => json(200, { ...sealedAnswer(job), protocol_version: SEALER_PROTOCOL_VERSION + 1 }),
      new RegExp(`^sealer speaks another protocol version: protocol_version ${SEALER_PROTOCOL_VERSION + 1}, expected ${SEALER_PROTOCOL_VERSION}$`),
    ],
    [
      "no version",
      () => json(200, sealedAnswer(job)),
      new RegExp(`^sealer speaks another protocol version: protocol_version null, expected ${SEALER_PROTOCOL_VERSION}$`),
    ],
    ["a failure code the protocol does not have", () => json(200, versioned({ status: "failed", code: "file_weird", message: "?" })), /: code: /],
    ["a field the protocol does not have", () => json(200, versioned({ ...sealedAnswer(job), bonus: true })), /Unrecognized key: "bonus"/],
    ["a status the protocol does not have", () => json(200, versioned({ status: "maybe" })), /status: /],
    [
      "the sealer's own error body",
      () => json(503, versioned({ code: "sealing_aborted", message: "the job's deadline passed" })),
      /^sealer answered 503: sealing_aborted: the job's deadline passed$/,
    ],
    ["a proxy's page", () => new Response("Bad gateway", { status: 502 }), /^sealer answered 502: Bad gateway$/],
  ])("treats %s as a transient failure that says what it got", async (_what, answer, message) => {
    sealerAnswering(answer);
    const error = await callSealer(sealerEnv, job).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientSealingError);
    expect((error as Error).message).toMatch(message);
  });

  it("retries a proof whose sealer answered what the protocol does not allow, stores nothing, and logs why", async () => {
    const org = await createOrganization({ balance: 2 });
    const { proofId } = await insertPendingProof(org.id, "live");
    sealerAnswering((sealJob) => {
      const { manifest_sha256: _missing, ...answer } = sealedAnswer(sealJob);
      return json(200, versioned({ ...answer, files: answer.files.map((file) => ({ ...file, signed_crc32: "cafe0001" })) }));
    });
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { deps, published } = dependencies((sealJob) => callSealer(sealerEnv, sealJob));
    const batch = createMessageBatch("proof-sealing", [{ id: "protocol-1", timestamp: new Date(), attempts: 1, body: { proof_id: proofId } }]);

    await consumeSealingMessages(batch.messages, deps);

    expect((await getQueueResult(batch, createExecutionContext())).retryMessages).toEqual([{ msgId: "protocol-1" }]);
    const logged = warnings.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(logged).toContainEqual(
      expect.objectContaining({
        proof_id: proofId,
        attempt: 1,
        reason: expect.stringMatching(
          new RegExp(`protocol version ${SEALER_PROTOCOL_VERSION} does not allow: .*manifest_sha256: .*files\\.0\\.signed_crc32: `),
        ),
      }),
    );
    const proof = await env.DB.prepare("SELECT status, manifest_sha256 FROM proofs WHERE id = ?").bind(proofId).first();
    expect(proof).toEqual({ status: "pending", manifest_sha256: null });
    const signed = await env.DB.prepare("SELECT signed_sha256 FROM files WHERE proof_id = ?").bind(proofId).all();
    expect(signed.results.every((file) => file.signed_sha256 === null)).toBe(true);
    expect(published).toEqual([]);
  });
});
