/** A small client of the operator API (CONTRACT.md "Operators"), shared by the dev script and the CLI. */
export class AdminClient {
  readonly baseUrl: string;
  readonly token: string;

  constructor(baseUrl: string, token: string) {
    this.baseUrl = baseUrl.replace(/\/$/, "");
    this.token = token;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const problem = parsed as { code?: string; title?: string; detail?: string; field?: string } | null;
      throw new Error(
        `${method} ${path}: ${response.status} ${problem?.code ?? ""} ${problem?.detail ?? problem?.title ?? text}${problem?.field ? ` (${problem.field})` : ""}`,
      );
    }
    return parsed as T;
  }

  /** On `shard` (one of OPEN_SHARDS), or when left out the open shard with the fewest organizations. */
  createOrganization(name: string, shard?: string) {
    return this.request<{ id: string; name: string; balance: number; shard: string }>("POST", "/admin/v1/organizations", {
      name,
      ...(shard === undefined ? {} : { shard }),
    });
  }

  createApiKey(organizationId: string, body: { mode: "test" | "live"; rights?: string[]; name?: string; rate_limit_per_minute?: number }) {
    return this.request<{ id: string; key: string }>("POST", `/admin/v1/organizations/${organizationId}/api-keys`, body);
  }

  revokeApiKey(keyId: string) {
    return this.request<null>("DELETE", `/admin/v1/api-keys/${keyId}`);
  }

  /** Sends the organization's new sessions to `shard` (one of OPEN_SHARDS) from now on; answers all its shards. */
  addWriteShard(organizationId: string, shard: string) {
    return this.request<{ id: string; shards: string[]; write_shard: string }>("POST", `/admin/v1/organizations/${organizationId}/write-shards`, { shard });
  }

  adjustBalance(organizationId: string, amount: number, reason: string) {
    return this.request<{ balance: number; available: number }>("POST", `/admin/v1/organizations/${organizationId}/balance`, { amount, reason });
  }
}
