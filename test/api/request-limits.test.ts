import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { API, callJson } from "./support/client.ts";
import { MAX_VERIFY_FILE_BYTES } from "../../src/routes/public/verify.ts";

const CHUNK = 1024 * 1024;

/** A body of `total` zero bytes sent without a length (chunked), as a streaming client sends it. */
function zeros(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(CHUNK, total - sent);
      sent += size;
      controller.enqueue(new Uint8Array(size));
    },
  });
}

const verify = (body: ReadableStream, headers: Record<string, string> = {}) =>
  exports.default.fetch(
    new Request(`${API}/v1/public/verify`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/octet-stream", "CF-Connecting-IP": `198.51.100.${Math.floor(Math.random() * 250)}`, ...headers },
    }),
  );

describe("verify by file stays within what Cloudflare accepts in a request body", () => {
  it("is 100 MB on the Free and Pro plans, and the schema says so", async () => {
    expect(MAX_VERIFY_FILE_BYTES).toBe(100_000_000);
    const document = await callJson("/openapi.json");
    const operation = document.body.paths["/v1/public/verify"].post;
    expect(operation.description).toContain("100,000,000 bytes");
    expect(operation.description).toContain("sha256");
    expect(JSON.stringify(operation.responses)).toContain("verify_file_too_large");
  });

  it("refuses an announced length over the limit with a problem 413 before reading the body", async () => {
    const stream = new FixedLengthStream(MAX_VERIFY_FILE_BYTES + 1);
    const response = await verify(stream.readable);
    expect(response.status).toBe(413);
    expect(response.headers.get("Content-Type")).toContain("application/problem+json");
    const problem = await response.json<any>();
    expect(problem.code).toBe("verify_file_too_large");
    expect(problem.detail).toContain('{"sha256"');
  });

  it("refuses a chunked body once it passes the limit, and verifies one just within it", async () => {
    const over = await verify(zeros(MAX_VERIFY_FILE_BYTES + 1));
    expect(over.status).toBe(413);
    expect((await over.json<any>()).code).toBe("verify_file_too_large");
    const within = await verify(zeros(MAX_VERIFY_FILE_BYTES));
    expect(within.status).toBe(200);
    expect(await within.json()).toEqual({ data: [] });
  }, 60_000);
});
