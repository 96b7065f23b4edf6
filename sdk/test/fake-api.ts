/** A stand-in for the API behind `fetch`, recording every request the SDK makes. */
export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: string | null;
}

export type Handler = (request: Recorded, index: number) => Response | Promise<Response>;

export function fakeFetch(handler: Handler) {
  const requests: Recorded[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const recorded = {
      method: init?.method ?? "GET",
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : null,
    };
    requests.push(recorded);
    return handler(recorded, requests.length - 1);
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const type = status >= 400 ? "application/problem+json" : "application/json";
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": type, "Request-Id": "req_test1", ...headers } });
}

export function problem(status: number, code: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Response {
  return json(status, { type: `http://localhost:8787/errors/${code}`, title: `Title of ${code}`, status, code, request_id: "req_problem1", ...extra }, headers);
}

/** Records the waits instead of waiting. */
export function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (milliseconds: number) => void waits.push(milliseconds) };
}
