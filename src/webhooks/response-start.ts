/**
 * The start of a receiver's answer, read no further: a receiver streaming an endless or huge body must
 * neither exhaust the Worker's memory nor turn an answered 2xx into a failure.
 */
export async function firstBytesOf(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const start = new Uint8Array(limit);
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.subarray(0, limit - size);
      start.set(take, size);
      size += take.length;
    }
  } catch {
    // The status line is the answer; a body that breaks off afterwards changes nothing.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(start.subarray(0, size));
}
