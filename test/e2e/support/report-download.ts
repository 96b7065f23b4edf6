/**
 * A GET, sent again once when the server closed the kept-alive connection it went out on (undici's
 * UND_ERR_SOCKET, "other side closed"): a race between polling and the dev server's idle timeout, seen
 * once in four runs, not an answer. Any other failure is thrown.
 */
export async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    return fetch(url);
  }
}

/** A PDF report from its public route, polled while it answers `report_not_ready` (made just after sealing). */
export async function downloadedReport(url: string, timeoutMs = 120_000): Promise<Buffer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await get(url);
    if (response.status === 200 && response.headers.get("content-type") === "application/pdf") return Buffer.from(await response.arrayBuffer());
    const problem = (await response.json()) as { code?: string };
    if (problem.code !== "report_not_ready") throw new Error(`${url}: ${response.status} ${JSON.stringify(problem)}`);
    if (Date.now() > deadline) throw new Error(`${url}: still not ready after ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 1_000));
  }
}
