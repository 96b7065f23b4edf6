import { env, exports } from "cloudflare:workers";

export const API = "http://localhost:8787";
export const CAPTURE = "http://127.0.0.1:8787";

export interface CallOptions {
  method?: string;
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  host?: string;
}

/** Calls the Worker as an integrator would, through its real fetch handler. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("Authorization", `Bearer ${options.key}`);
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("Content-Type", "application/json");
  }
  const url = path.startsWith("http") ? path : `${options.host ?? API}${path}`;
  return exports.default.fetch(new Request(url, { method: options.method ?? (body ? "POST" : "GET"), headers, body }));
}

export async function callJson<T = any>(path: string, options: CallOptions = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await call(path, options);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
}

export function admin(path: string, body?: unknown, method?: string) {
  return callJson(path, { key: env.ADMIN_TOKEN, body, method });
}
